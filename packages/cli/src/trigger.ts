import { authHeaders, problemOf, type ApiSettings } from './api.ts';

/** What `cluster trigger` was asked for. */
export interface TriggerOptions {
  api: ApiSettings;
  eventName: string;
  /** A subscription to send to; default: every listener of the organization whose selectors take the event. */
  webhook?: string;
  /** Payload fields that replace the example's (checked by the platform against the event's schema). */
  payload?: Record<string, unknown>;
  print: (line: string) => void;
  fetch?: typeof fetch;
}

interface Subscription {
  id: string;
  eventNames: string[];
}

/** Whether selectors take an event name: the name itself, `*`, or `prefix.*` (the platform's rule). */
export function selects(selectors: readonly string[], eventName: string): boolean {
  return selectors.some((s) => s === '*' || s === eventName || (s.endsWith('.*') && eventName.startsWith(s.slice(0, -1))));
}

/**
 * Fires a test event (POST /webhooks/:id/test {eventName}): the catalogue's example of the event, with
 * fresh ids, signed and delivered as any delivery. To `webhook`, or to each of the organization's
 * listeners (GET /webhooks?temporary=true) that selects it. Resolves 0 when at least one was sent.
 */
export async function trigger(opts: TriggerOptions): Promise<number> {
  const doFetch = opts.fetch ?? fetch;
  const headers = authHeaders(opts.api);
  let targets: string[];
  if (opts.webhook) targets = [opts.webhook];
  else {
    const res = await doFetch(`${opts.api.base}/webhooks?temporary=true&pageSize=100`, { headers });
    if (!res.ok) return fail(opts, `cannot list the listeners: ${await problemOf(res)}`);
    const { data } = (await res.json()) as { data: Subscription[] };
    targets = data.filter((s) => selects(s.eventNames, opts.eventName)).map((s) => s.id);
    if (!targets.length)
      return fail(opts, `no listener selects ${opts.eventName}: start \`cluster listen\` first, or name --webhook <id>`);
  }
  let sent = 0;
  for (const id of targets) {
    const res = await doFetch(`${opts.api.base}/webhooks/${encodeURIComponent(id)}/test`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ eventName: opts.eventName, ...(opts.payload ? { payload: opts.payload } : {}) }),
    });
    if (!res.ok) {
      opts.print(`${id}: ${await problemOf(res)}`);
      continue;
    }
    const result = (await res.json()) as { deliveryId: string | null; deliveryError?: string };
    opts.print(
      `Triggered ${opts.eventName} → ${id}: delivery ${result.deliveryId}${result.deliveryError ? ` (${result.deliveryError})` : ''}`,
    );
    if (!result.deliveryError) sent++;
  }
  return sent > 0 ? 0 : 1;
}

function fail(opts: Pick<TriggerOptions, 'print'>, message: string): number {
  opts.print(message);
  return 1;
}
