import { useQuery } from '@tanstack/react-query';
import { client } from '../api.ts';
import { useWebhooks } from '../data.ts';
import type { Webhook } from '../types.ts';
import { Empty, Failure, Loading, Section, when } from '../ui.tsx';

interface Stats {
  window: string;
  deliveries: { total: number; succeeded: number; failed: number; pending: number; dead_letter: number };
  successRatio: number | null;
  attempts: { total: number; succeeded: number; failed: number; p50DurationMs: number | null; p95DurationMs: number | null };
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
}

const percent = (r: number | null) => (r === null ? '—' : `${Math.round(r * 1000) / 10}%`);

function Window({ hook, window }: { hook: Webhook; window: '24h' | '7d' }) {
  const stats = useQuery({
    queryKey: ['stats', hook.id, window],
    queryFn: async () => (await client.webhooks.stats(hook.id, { window })) as unknown as Stats,
    refetchInterval: 10_000,
  });
  if (stats.isPending) return <Loading what="statistics" />;
  if (stats.isError) return <Failure what="statistics" error={stats.error} retry={() => void stats.refetch()} />;
  const s = stats.data;
  const p50 = s.attempts.p50DurationMs ?? 0;
  const p95 = s.attempts.p95DurationMs ?? 0;
  const scale = Math.max(p95, 1);
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
      <svg className="bars" viewBox="0 0 200 44" role="img" aria-label={`Latency p50 ${p50} ms, p95 ${p95} ms`}>
        <rect x="40" y="4" height="14" width={(160 * p50) / scale} className="bar p50" />
        <text x="0" y="15">
          p50
        </text>
        <rect x="40" y="26" height="14" width={(160 * p95) / scale} className="bar p95" />
        <text x="0" y="37">
          p95
        </text>
      </svg>
      <p className="hint">
        p50 {s.attempts.p50DurationMs ?? '—'} ms · p95 {s.attempts.p95DurationMs ?? '—'} ms · failed attempts {s.attempts.failed}{' '}
        · last success {when(s.lastSuccessAt)} · last failure {when(s.lastFailureAt)}
      </p>
    </div>
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
        <article key={w.id} className="card">
          <h3>
            <code>{w.destinationUrl}</code>{' '}
            <span className={`badge ${w.enabled ? (w.failingSince ? 'warn' : 'ok') : 'off'}`}>
              {w.enabled ? (w.failingSince ? 'failing' : 'healthy') : 'disabled'}
            </span>
          </h3>
          {w.failingSince && (
            <p className="warn-text">
              Every attempt has failed since {when(w.failingSince)} ({w.consecutiveFailures} in a row); the endpoint is disabled
              if it keeps failing.
            </p>
          )}
          <div className="windows">
            <Window hook={w} window="24h" />
            <Window hook={w} window="7d" />
          </div>
        </article>
      ))}
    </Section>
  );
}
