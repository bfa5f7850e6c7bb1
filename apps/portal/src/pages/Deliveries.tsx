import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { client, messageOf } from '../api.ts';
import { useWebhooks } from '../data.ts';
import type { Delivery, Page } from '../types.ts';
import { Empty, Failure, Loading, Pager, Section, when } from '../ui.tsx';

/** Deliveries a page of the log shows; the pager pages through the rest. */
const DELIVERIES_PER_PAGE = 25;
const STATUSES = ['', 'pending', 'succeeded', 'failed', 'dead_letter'] as const;
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

function Detail({ delivery, canWrite }: { delivery: Delivery; canWrite: boolean }) {
  const queries = useQueryClient();
  const detail = useQuery({
    queryKey: ['delivery', delivery.id],
    queryFn: async () => await client.webhooks.getDelivery(delivery.subscriptionId, delivery.id),
  });
  const resend = useMutation({
    mutationFn: () => client.webhooks.redeliver(delivery.subscriptionId, delivery.id),
    onSuccess: (d) => {
      queries.setQueryData(['delivery', delivery.id], d);
      void queries.invalidateQueries({ queryKey: ['deliveries'] });
    },
  });
  return (
    <div className="card detail" aria-label={`Delivery ${delivery.id}`}>
      <h3>
        Attempts of <code>{delivery.eventName}</code>
      </h3>
      {detail.isPending && <Loading what="the attempts" />}
      {detail.isError && <Failure what="the attempts" error={detail.error} retry={() => void detail.refetch()} />}
      {detail.data && (
        <table>
          <caption className="sr-only">Attempts</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Time</th>
              <th scope="col">Outcome</th>
              <th scope="col">Status</th>
              <th scope="col">Latency</th>
              <th scope="col">Answer / error</th>
            </tr>
          </thead>
          <tbody>
            {(detail.data.attemptLog ?? []).map((a) => (
              <tr key={a.attempt} data-outcome={a.outcome}>
                <td>{a.attempt}</td>
                <td>{when(a.attemptedAt)}</td>
                <td>
                  <span className={`badge ${a.outcome === 'succeeded' ? 'ok' : 'bad'}`}>{a.outcome}</span>
                </td>
                <td>{a.responseCode ?? '—'}</td>
                <td>{a.durationMs} ms</td>
                <td>
                  {a.error && <div className="error">{a.error}</div>}
                  {a.responseBody && <code className="answer">{a.responseBody.slice(0, 300)}</code>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canWrite && (
        <button type="button" onClick={() => resend.mutate()} disabled={resend.isPending}>
          {resend.isPending ? 'Resending…' : 'Resend'}
        </button>
      )}
      {resend.isError && (
        <p role="alert" className="error">
          {messageOf(resend.error)}
        </p>
      )}
    </div>
  );
}

function Recover() {
  const hooks = useWebhooks();
  const [endpoint, setEndpoint] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const recover = useMutation({
    mutationFn: () =>
      client.webhooks.recover(endpoint || hooks.data!.data[0].id, {
        since: iso(since)!,
        ...(until ? { until: iso(until) } : {}),
      }) as unknown as Promise<{
        id: string;
        status: string;
      }>,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    recover.mutate();
  };
  if (!hooks.data?.data.length) return null;
  return (
    <form className="card" onSubmit={submit} aria-label="Recover a window">
      <h3>Recover a time window</h3>
      <p className="hint">Queues again every failed and dead-lettered delivery of one endpoint created in the window.</p>
      <div className="row">
        <label>
          Endpoint
          <select value={endpoint} onChange={(e) => setEndpoint(e.target.value)}>
            {hooks.data.data.map((w) => (
              <option key={w.id} value={w.id}>
                {w.destinationUrl}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="datetime-local" required value={since} onChange={(e) => setSince(e.target.value)} />
        </label>
        <label>
          Until (default now)
          <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
        <button type="submit" disabled={recover.isPending}>
          Recover
        </button>
        {recover.data && <span role="status">Recovery {recover.data.status}.</span>}
        {recover.isError && (
          <span role="alert" className="error">
            {messageOf(recover.error)}
          </span>
        )}
      </div>
    </form>
  );
}

export function Deliveries({ canWrite }: { canWrite: boolean }) {
  const hooks = useWebhooks();
  const [subscriptionId, setSubscriptionId] = useState('');
  const [eventName, setEventName] = useState('');
  const [status, setStatus] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const query = {
    page,
    pageSize: DELIVERIES_PER_PAGE,
    ...(subscriptionId ? { subscriptionId } : {}),
    ...(eventName.trim() ? { eventName: eventName.trim() } : {}),
    ...(status ? { status } : {}),
    ...(since ? { since: iso(since) } : {}),
    ...(until ? { until: iso(until) } : {}),
  };
  const list = useQuery({
    queryKey: ['deliveries', query],
    queryFn: async () =>
      (await client.request('get', '/api/v1/webhook-deliveries', { query: query as never })) as unknown as Page<Delivery>,
    refetchInterval: 3_000,
  });
  const urlOf = new Map((hooks.data?.data ?? []).map((w) => [w.id, w.destinationUrl]));
  return (
    <Section title="Delivery log">
      {/* A changed filter starts again at the first page. */}
      <form className="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()} onChange={() => setPage(1)}>
        <label>
          Endpoint
          <select value={subscriptionId} onChange={(e) => setSubscriptionId(e.target.value)}>
            <option value="">All endpoints</option>
            {(hooks.data?.data ?? []).map((w) => (
              <option key={w.id} value={w.id}>
                {w.destinationUrl}
              </option>
            ))}
          </select>
        </label>
        <label>
          Event
          <input value={eventName} onChange={(e) => setEventName(e.target.value)} placeholder="entry.created" />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s || 'Any status'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Since
          <input type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} />
        </label>
        <label>
          Until
          <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
      </form>
      {list.isPending && <Loading what="deliveries" />}
      {list.isError && <Failure what="deliveries" error={list.error} retry={() => void list.refetch()} />}
      {list.data && list.data.data.length === 0 && (
        <Empty>
          No delivery matches. Deliveries appear here when an event an endpoint listens to happens, or when you send a test event.
        </Empty>
      )}
      {list.data && list.data.data.length > 0 && (
        <table className="deliveries">
          <caption className="sr-only">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">
                <span className="sr-only">Details</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((d) => (
              <tr key={d.id} data-status={d.status}>
                <td>{when(d.createdAt)}</td>
                <td>
                  <code>{d.eventName}</code>
                </td>
                <td>{urlOf.get(d.subscriptionId) ?? d.subscriptionId}</td>
                <td>
                  <span className={`badge ${d.status === 'succeeded' ? 'ok' : d.status === 'pending' ? 'warn' : 'bad'}`}>
                    {d.status}
                  </span>
                </td>
                <td>{d.attempts}</td>
                <td>{d.responseCode ?? d.error ?? '—'}</td>
                <td>
                  <button type="button" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? null : d.id)}>
                    {open === d.id ? 'Hide attempts' : 'Show attempts'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.data && (
        <Pager what="deliveries" page={page} pageSize={DELIVERIES_PER_PAGE} total={list.data.total} onPage={setPage} />
      )}
      {open && list.data?.data.find((d) => d.id === open) && (
        <Detail delivery={list.data.data.find((d) => d.id === open)!} canWrite={canWrite} />
      )}
      {canWrite && <Recover />}
    </Section>
  );
}
