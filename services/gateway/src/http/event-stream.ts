import { Readable } from 'node:stream';

/** How often an idle stream sends a comment, so proxies and load balancers keep the connection open. */
export const PING_MS = 15_000;

/** One server-sent event: its type, id and JSON data (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export interface ServerSentEvent {
  event: string;
  id?: string;
  /** UTF-8 JSON, one line (JSON.stringify never writes a raw line break). */
  data: Uint8Array | string;
}

/** An event in the text/event-stream format. */
export function formatEvent(e: ServerSentEvent): string {
  const data = typeof e.data === 'string' ? e.data : Buffer.from(e.data).toString('utf8');
  return `event: ${e.event}\n${e.id ? `id: ${e.id}\n` : ''}data: ${data.replace(/\r?\n/g, '\ndata: ')}\n\n`;
}

/**
 * The body of a text/event-stream answer: `first`, then each of `rest` as it comes, with a `: ping`
 * comment every PING_MS. Destroying the stream (the client went away, the server stops) calls
 * `close`, which ends the source (the backend call's abort); the source ending ends the stream.
 */
export function eventStream(
  first: ServerSentEvent,
  rest: AsyncIterator<ServerSentEvent>,
  close: () => void,
  pingMs = PING_MS,
): Readable {
  const ping = setInterval(() => out.push(': ping\n\n'), pingMs);
  const out = new Readable({
    read() {},
    destroy(err, done) {
      clearInterval(ping);
      close();
      done(err);
    },
  });
  out.push(formatEvent(first));
  void (async () => {
    try {
      for (let next = await rest.next(); !next.done; next = await rest.next()) out.push(formatEvent(next.value));
      out.push(null);
    } catch (err) {
      // The backend's end or failure after the answer began: the stream ends (the client reconnects).
      if (!out.destroyed) out.destroy(err instanceof Error ? err : new Error(String(err)));
    } finally {
      clearInterval(ping);
    }
  })();
  return out;
}
