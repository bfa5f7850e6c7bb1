import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { client, messageOf } from '../api.ts';
import { exampleOf, useCatalogue, useWebhooks } from '../data.ts';
import type { EventType } from '../types.ts';
import { Empty, Failure, Loading, Section } from '../ui.tsx';

/** Whether a subscription's list (names and `family.*` wildcards) selects `name`. */
const selects = (list: string[], name: string) =>
  list.some((n) => n === name || n === '*' || (n.endsWith('.*') && name.startsWith(n.slice(0, -1))));

function SendTest({ event }: { event: EventType }) {
  const hooks = useWebhooks();
  const targets = (hooks.data?.data ?? []).filter((w) => selects(w.eventNames, event.name));
  const [target, setTarget] = useState('');
  const send = useMutation({
    mutationFn: () =>
      client.webhooks.test(target || targets[0].id, { eventName: event.name }) as unknown as Promise<{
        deliveryId: string;
        deliveryError?: string;
      }>,
  });
  if (!targets.length) return <p className="hint">No endpoint listens to this event.</p>;
  return (
    <div className="row">
      <label>
        Send a test event to
        <select value={target || targets[0].id} onChange={(e) => setTarget(e.target.value)}>
          {targets.map((w) => (
            <option key={w.id} value={w.id}>
              {w.destinationUrl}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={() => send.mutate()} disabled={send.isPending}>
        Send test event
      </button>
      {send.data && (
        <span role="status">
          {send.data.deliveryError ? `Sent; the endpoint failed: ${send.data.deliveryError}` : 'Sent and delivered.'}
        </span>
      )}
      {send.isError && (
        <span role="alert" className="error">
          {messageOf(send.error)}
        </span>
      )}
    </div>
  );
}

export function Events({ canWrite }: { canWrite: boolean }) {
  const catalogue = useCatalogue();
  const [filter, setFilter] = useState('');
  const shown = catalogue.data?.data.filter((t) => t.name.includes(filter.trim())) ?? [];
  return (
    <Section title="Event catalogue">
      <label>
        Filter events
        <input value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="entry." />
      </label>
      {catalogue.isPending && <Loading what="the event catalogue" />}
      {catalogue.isError && <Failure what="the event catalogue" error={catalogue.error} retry={() => void catalogue.refetch()} />}
      {catalogue.data && shown.length === 0 && <Empty>No event name contains “{filter}”.</Empty>}
      <ul className="catalogue">
        {shown.map((t) => (
          <li key={t.name} className="card">
            <h3>
              <code>{t.name}</code> {!t.emitted && <span className="badge off">reserved</span>}
            </h3>
            <p>{t.description}</p>
            <details>
              <summary>Payload schema</summary>
              <pre tabIndex={0}>
                <code>{JSON.stringify(t.payloadSchema, null, 2)}</code>
              </pre>
            </details>
            <details>
              <summary>Example payload</summary>
              <pre tabIndex={0}>
                <code>{JSON.stringify(exampleOf(t.payloadSchema), null, 2)}</code>
              </pre>
            </details>
            {canWrite && <SendTest event={t} />}
          </li>
        ))}
      </ul>
    </Section>
  );
}
