import { verify } from '@cluster/webhook-verify';

/** A delivery as the stream carries it: the signed headers of a real attempt and the exact body. */
export interface StreamedDelivery {
  deliveryId: string;
  eventName: string;
  headers: Record<string, string>;
  body: string;
}

/** What the local receiver made of a forwarded delivery. */
export interface Forwarded {
  /** Its HTTP status, or null when it could not be reached. */
  status: number | null;
  ms: number;
  error?: string;
}

/**
 * POSTs a delivery to `url` with its headers verbatim (so the receiver verifies the signature with the
 * printed secret and any Standard Webhooks library) and the exact body; the answer's status and the
 * time it took. A delivery whose signature does not verify with `secret` is not forwarded (it was not
 * signed by the platform for this listener).
 */
export async function forward(
  url: string,
  delivery: StreamedDelivery,
  secret: string,
  opts: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<Forwarded> {
  try {
    verify(delivery.body, delivery.headers, secret);
  } catch (err) {
    return { status: null, ms: 0, error: `not forwarded: the signature does not verify (${(err as Error).message})` };
  }
  const started = performance.now();
  try {
    const res = await (opts.fetch ?? fetch)(url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
    });
    await res.arrayBuffer().catch(() => undefined); // read to its end, so the connection is reused
    return { status: res.status, ms: Math.round(performance.now() - started) };
  } catch (err) {
    // fetch says `fetch failed`; its cause says why (ECONNREFUSED, a timeout, a bad port).
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const error = cause?.code ?? cause?.message ?? (err as Error).message;
    return { status: null, ms: Math.round(performance.now() - started), error };
  }
}

/** The line printed for a forwarded delivery: `→ 200 entry.created 12 ms <delivery id>`. */
export function forwardedLine(d: Pick<StreamedDelivery, 'deliveryId' | 'eventName'>, f: Forwarded): string {
  return `→ ${f.status ?? 'ERR'} ${d.eventName} ${f.ms} ms ${d.deliveryId}${f.error ? ` (${f.error})` : ''}`;
}
