import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { client } from '../api.ts';
import { LatencyChart, percent, SeriesTable, SuccessChart } from '../charts.tsx';
import { useWebhooks } from '../data.ts';
import type { Stats, Webhook } from '../types.ts';
import { Empty, Failure, Loading, Section, when } from '../ui.tsx';
import { DeliveryRules } from './EndpointSettings.tsx';

const WINDOW_NAMES = { '24h': 'last day', '7d': 'last week' } as const;

const useStats = (hook: Webhook, window: '24h' | '7d') =>
  useQuery({
    queryKey: ['stats', hook.id, window],
    queryFn: async () => await client.webhooks.stats(hook.id, { window }),
    refetchInterval: 10_000,
  });

/** "in 3 h 12 min" (or "now") until `iso`. */
function remaining(iso: string): string {
  const minutes = Math.round((Date.parse(iso) - Date.now()) / 60_000);
  if (minutes <= 0) return 'at the next health check';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const parts = [days && `${days} d`, hours && `${hours} h`, `${minutes % 60} min`].filter(Boolean);
  return `in ${parts.join(' ')}`;
}

/** The auto-disable countdown of a failing endpoint (failingSince + WEBHOOK_DISABLE_AFTER_HOURS: `disablesAt`). */
function Countdown({ hook, stats }: { hook: Webhook; stats: UseQueryResult<Stats> }) {
  if (!hook.enabled || !hook.failingSince) return null;
  const at = stats.data?.disablesAt;
  return (
    <p className="warn-text" data-testid="countdown">
      Every attempt has failed since {when(hook.failingSince)} ({hook.consecutiveFailures} in a row).{' '}
      {at ? (
        <>
          Unless an attempt succeeds first, the endpoint will be disabled {remaining(at)}, at{' '}
          <time dateTime={at}>{when(at)}</time>.
        </>
      ) : (
        'The endpoint is disabled if it keeps failing.'
      )}{' '}
      Fix the receiver, then resend or recover what it missed on the Delivery log page.
    </p>
  );
}

/** The receiver's own throttling: a pause it asked for with Retry-After, the subscription's limits. */
function Throttling({ hook, stats }: { hook: Webhook; stats: UseQueryResult<Stats> }) {
  const t = stats.data?.throttling;
  const pausedUntil = t?.pausedUntil ?? hook.pausedUntil ?? null;
  const limits = [
    hook.rateLimit ? `at most ${hook.rateLimit} deliveries a second` : null,
    hook.maxInFlight ? `at most ${hook.maxInFlight} at once` : null,
  ].filter(Boolean);
  if (!pausedUntil && !t?.pauses && !limits.length) return null;
  return (
    <p className="hint" data-testid="throttling">
      {pausedUntil && Date.parse(pausedUntil) > Date.now() && (
        <>
          Paused at the receiver’s request (Retry-After) until <time dateTime={pausedUntil}>{when(pausedUntil)}</time>.{' '}
        </>
      )}
      {t?.pauses ? `The receiver asked for ${t.pauses} pauses in the last day (${Math.round(t.pausedSeconds)} s). ` : ''}
      {limits.length ? `Limited to ${limits.join(', ')}.` : ''}
    </p>
  );
}

function Window({ window, stats }: { window: '24h' | '7d'; stats: UseQueryResult<Stats> }) {
  const name = WINDOW_NAMES[window];
  if (stats.isPending) return <Loading what="statistics" />;
  if (stats.isError) return <Failure what="statistics" error={stats.error} retry={() => void stats.refetch()} />;
  const s = stats.data;
  const { bucket, points } = s.series;
  const by = bucket === 'hour' ? 'by hour' : 'by day';
  return (
    <div className="window">
      <h4>Last {window === '24h' ? 'day' : 'week'}</h4>
      <p>
        Success rate <strong>{percent(s.successRatio)}</strong> of {s.deliveries.total} deliveries
      </p>
      <meter
        min={0}
        max={1}
        low={0.9}
        high={0.99}
        optimum={1}
        value={s.successRatio ?? 0}
        aria-label={`Success rate, last ${window}`}
      >
        {percent(s.successRatio)}
      </meter>
      <p className="hint">
        Attempts: p50 {s.attempts.p50DurationMs ?? '—'} ms · p95 {s.attempts.p95DurationMs ?? '—'} ms · p99{' '}
        {s.attempts.p99DurationMs ?? '—'} ms · failed {s.attempts.failed} · last success {when(s.lastSuccessAt)} · last failure{' '}
        {when(s.lastFailureAt)}
      </p>
      <figure className="chart-figure">
        <SuccessChart points={points} bucket={bucket} title={`Success rate ${by}, ${name}`} />
        <figcaption>Success rate {by} (deliveries created in each)</figcaption>
      </figure>
      <figure className="chart-figure">
        <LatencyChart points={points} bucket={bucket} title={`Attempt latency p50 and p99 ${by}, ${name}`} />
        <figcaption>Attempt latency p50 and p99 {by}</figcaption>
      </figure>
      <details>
        <summary>The numbers, {by}</summary>
        <SeriesTable points={points} bucket={bucket} caption={`Deliveries and latency ${by}, ${name}`} />
      </details>
    </div>
  );
}

function EndpointHealth({ hook }: { hook: Webhook }) {
  const day = useStats(hook, '24h');
  const week = useStats(hook, '7d');
  return (
    <article className="card" aria-label={`Health of ${hook.destinationUrl}`}>
      <h3>
        <code>{hook.destinationUrl}</code>{' '}
        <span className={`badge ${hook.enabled ? (hook.failingSince ? 'warn' : 'ok') : 'off'}`}>
          {hook.enabled ? (hook.failingSince ? 'failing' : 'healthy') : 'disabled'}
        </span>
      </h3>
      <Countdown hook={hook} stats={day} />
      <DeliveryRules hook={hook}>
        {day.data && ` It kept back ${day.data.filtered} ${day.data.filtered === 1 ? 'event' : 'events'} in the last day.`}
      </DeliveryRules>
      <Throttling hook={hook} stats={day} />
      <div className="windows">
        <Window window="24h" stats={day} />
        <Window window="7d" stats={week} />
      </div>
    </article>
  );
}

export function Health() {
  const hooks = useWebhooks();
  return (
    <Section title="Health">
      {hooks.isPending && <Loading what="endpoints" />}
      {hooks.isError && <Failure what="endpoints" error={hooks.error} retry={() => void hooks.refetch()} />}
      {hooks.data && hooks.data.data.length === 0 && <Empty>No endpoints yet: create one on the Endpoints page.</Empty>}
      {hooks.data?.data.map((w) => (
        <EndpointHealth key={w.id} hook={w} />
      ))}
    </Section>
  );
}
