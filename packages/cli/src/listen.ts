import { authHeaders, problemOf, type ApiSettings } from './api.ts';
import { forward, forwardedLine, type StreamedDelivery } from './forward.ts';
import { parseEventStream } from './sse.ts';

/** What `cluster listen` was asked for. */
export interface ListenOptions {
  api: ApiSettings;
  forwardTo: string;
  /** Comma-separated selectors (`entry.*,release.created`); every event when absent. */
  events?: string;
  print: (line: string) => void;
  /** Ends the listening (Ctrl-C): the stream is closed, so the platform removes the subscription at once. */
  signal: AbortSignal;
  fetch?: typeof fetch;
}

/** Waits between reconnections: from the first to the longest, doubling. */
const BACKOFF_MS = { first: 1_000, max: 30_000 };

/** A refusal no retry changes (a bad key, a missing permission, unknown event names): the listening ends. */
class Refused extends Error {}

/**
 * Listens until `signal` aborts: opens the stream (GET /webhooks/listen), prints the temporary
 * subscription's secret, forwards each delivery to `forwardTo` as it comes (in order) and prints its
 * status and latency. A dropped stream is opened again after a backoff, with a new subscription and
 * secret (printed). Resolves 0 when stopped, 1 when refused.
 */
export async function listen(opts: ListenOptions): Promise<number> {
  const doFetch = opts.fetch ?? fetch;
  const url = new URL(`${opts.api.base}/webhooks/listen`);
  if (opts.events) url.searchParams.set('events', opts.events);
  let backoff = BACKOFF_MS.first;
  while (!opts.signal.aborted) {
    try {
      await stream(opts, doFetch, url, () => (backoff = BACKOFF_MS.first));
      if (!opts.signal.aborted) opts.print('the stream ended; reconnecting');
    } catch (err) {
      if (opts.signal.aborted) break;
      if (err instanceof Refused) {
        opts.print(`refused: ${err.message}`);
        return 1;
      }
      opts.print(`connection lost (${(err as Error).message}); reconnecting in ${backoff / 1000} s`);
    }
    await sleep(backoff, opts.signal);
    backoff = Math.min(backoff * 2, BACKOFF_MS.max);
  }
  return 0;
}

/** One stream, to its end. `connected` is called once it is ready. */
async function stream(opts: ListenOptions, doFetch: typeof fetch, url: URL, connected: () => void): Promise<void> {
  const res = await doFetch(url, {
    headers: { ...authHeaders(opts.api), accept: 'text/event-stream' },
    signal: opts.signal,
  });
  if (!res.ok) {
    const problem = await problemOf(res);
    // 429 (the organization's listeners are at their cap) and 5xx may pass; any other 4xx will not.
    if (res.status >= 400 && res.status < 500 && res.status !== 429) throw new Refused(problem);
    throw new Error(problem);
  }
  if (!res.body) throw new Error('the answer has no body');
  let secret: string | undefined;
  for await (const e of parseEventStream(res.body)) {
    if (e.event === 'ready') {
      const ready = JSON.parse(e.data) as { subscriptionId: string; secret: string; eventNames: string[] };
      secret = ready.secret;
      connected();
      opts.print(`Ready: forwarding ${ready.eventNames.join(', ')} to ${opts.forwardTo}`);
      opts.print(`Signing secret: ${ready.secret} (subscription ${ready.subscriptionId}; a new one at each reconnection)`);
    } else if (e.event === 'delivery' && secret) {
      const d = JSON.parse(e.data) as StreamedDelivery;
      opts.print(forwardedLine(d, await forward(opts.forwardTo, d, secret, { fetch: opts.fetch })));
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
