import { WebhookVerificationError } from './errors.ts';
import { headerOf, verify, type HeaderSource, type VerifyOptions } from './verify.ts';

/**
 * The body of every delivery (docs/webhooks.md, "What a delivery looks like"), with its payload
 * untyped. `@cluster/client`'s `constructEvent` returns the same body typed per event name
 * (`WebhookEvent`); here a caller may name its own type: `constructEvent<MyEvent>(…)`.
 */
export interface WebhookEnvelope {
  /** The delivery id; the same on every retry (`webhook-id`, `X-Service-Delivery-Id`). */
  id: string;
  eventName: string;
  schemaVersion: number;
  entityType: string;
  entityId: string;
  /** When the change committed (RFC 3339). */
  occurredAt: string;
  /** Who made it; null for system actions. */
  actorUserId: string | null;
  payload: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Which envelope field is missing or of the wrong type, or undefined when the body is an envelope. */
function envelopeProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'the body is not a JSON object';
  for (const field of ['id', 'eventName', 'entityType', 'entityId', 'occurredAt'])
    if (typeof body[field] !== 'string') return `the body's ${field} is not a string`;
  if (typeof body.schemaVersion !== 'number') return "the body's schemaVersion is not a number";
  if (body.actorUserId !== null && typeof body.actorUserId !== 'string') return "the body's actorUserId is not a string or null";
  if (!isObject(body.payload)) return "the body's payload is not an object";
  return undefined;
}

/**
 * Verifies a delivery and returns its body as an event (like `stripe.webhooks.constructEvent`):
 * the signature over the raw bytes (`verify`, with the same secrets or `whpk_` public keys and
 * options), then the body's shape (the envelope), and that the `X-Service-Event` header, when sent,
 * names the body's event. Throws `WebhookVerificationError` otherwise: `invalid_body` for a body that
 * is not an envelope, `header_mismatch` when the header and the body name different events or
 * deliveries, and verify's codes.
 */
export function constructEvent<E extends WebhookEnvelope = WebhookEnvelope>(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secretOrPublicKey: string | readonly string[],
  options: VerifyOptions = {},
): E {
  const verified = verify(rawBody, headers, secretOrPublicKey, options);
  const problem = envelopeProblem(verified.payload);
  if (problem) throw new WebhookVerificationError('invalid_body', `not a webhook event: ${problem}`);
  const event = verified.payload as E;
  if (verified.eventName !== undefined && verified.eventName !== event.eventName)
    throw new WebhookVerificationError('header_mismatch', 'X-Service-Event and the body name different events');
  const deliveryId = headerOf(headers, 'webhook-id') ?? headerOf(headers, 'x-service-delivery-id');
  if (deliveryId !== undefined && deliveryId !== event.id)
    throw new WebhookVerificationError('header_mismatch', "the delivery id header and the body's id differ");
  return event;
}
