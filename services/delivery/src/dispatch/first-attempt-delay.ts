/** How far into a delivery's body to look for the envelope's `occurredAt` (it is the sixth field, after short ones). */
const HEAD_CHARS = 4096;
/**
 * The envelope's top-level `occurredAt`. JSON.stringify writes the envelope's fields in order
 * (features/deliveries/envelope.ts) and escapes every quote inside a string, so the first match
 * is the envelope's own field, never one of the payload's or text inside a value.
 */
const OCCURRED_AT = /"occurredAt":"([^"\\]{1,64})"/;

/**
 * Seconds from an event's occurrence to the first attempt of one of its deliveries (the webhook
 * delivery SLO, docs/runbook.md "Service level objectives"), read from the delivery's body (the
 * subscriber envelope) without parsing all of it: a body of several MiB costs a regex over its
 * first few KiB. Undefined when the body has no well-formed `occurredAt`: such a delivery is left
 * out of the histogram, never an error. Clock skew between the core (which stamps `occurredAt`)
 * and this replica can make it negative: counted as 0.
 */
export function firstAttemptDelaySeconds(body: string, attemptedAt: Date): number | undefined {
  const m = OCCURRED_AT.exec(body.slice(0, HEAD_CHARS));
  if (!m) return undefined;
  const occurred = Date.parse(m[1]);
  if (!Number.isFinite(occurred)) return undefined;
  return Math.max(0, (attemptedAt.getTime() - occurred) / 1000);
}
