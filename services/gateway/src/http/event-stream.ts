import { Readable } from 'node:stream';

/** How often an idle stream sends a comment, so proxies and load balancers keep the connection open. */
export const PING_MS = 15_000;

/** The streams open in this process, by their ending: a stopping gateway ends them, or its server never closes. */
const open = new Map<Readable, () => void>();

/**
 * Ends every open stream (the shutdown's stop_intake, with the server's close): each client sees its
 * stream end and connects again, to a replica that is not stopping.
 */
export function endEventStreams(): void {
  for (const end of [...open.values()]) end();
}

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
 * comment every PING_MS. It ends when `rest` does, or when the gateway stops (`endEventStreams`);
 * destroyed (the client went away), it stops. Either way `close` is called once: it ends the source
 * (the backend call's abort).
 */
export function eventStream(
  first: ServerSentEvent,
  rest: AsyncIterator<ServerSentEvent>,
  close: () => void,
  pingMs = PING_MS,
): Readable {
  let done = false;
  const stop = () => {
    if (done) return false;
    done = true;
    clearInterval(ping);
    open.delete(out);
    close();
    return true;
  };
  const out = new Readable({
    read() {},
    destroy(err, callback) {
      stop();
      callback(err);
    },
  });
  const ping = setInterval(() => out.push(': ping\n\n'), pingMs);
  open.set(out, () => stop() && out.push(null));
  out.push(formatEvent(first));
  void (async () => {
    try {
      for (let next = await rest.next(); !next.done && !done; next = await rest.next()) out.push(formatEvent(next.value));
      if (stop()) out.push(null);
    } catch (err) {
      // The backend's failure after the answer began (not the abort of a stream already ended): the client reconnects.
      if (stop()) out.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  })();
  return out;
}
