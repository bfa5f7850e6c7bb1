// Typed webhook events, from the `webhooks` section of the OpenAPI document (one per name a
// subscription may list, written from the event catalogue: docs/webhooks.md, "Event catalogue").
import {
  constructEvent as constructEnvelope,
  type HeaderSource,
  type VerifyOptions,
  type WebhookEnvelope,
} from '@cluster/webhook-verify';
import type { webhooks } from './generated/openapi.ts';

/** A name a subscription may list: `'entry.created' | 'entry.updated' | …`. */
export type EventName = keyof webhooks;

type BodyOf<N extends EventName> = webhooks[N]['post'] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/**
 * The body a subscriber receives for an event, discriminated by `eventName`: narrow a
 * `WebhookEvent` with `if (event.eventName === 'entry.created')` and its `payload` is that event's.
 */
export type WebhookEvent<N extends EventName = EventName> = { [K in N]: BodyOf<K> }[N];

/**
 * Verifies a delivery and returns its typed event, like `stripe.webhooks.constructEvent`: the
 * signature over the raw bytes (with the subscription's `whsec_` secret, or its `whpk_` public key
 * for an `ed25519` subscription; several during a rotation), the envelope's shape, and the headers
 * against the body; then narrow by `eventName`. Throws `WebhookVerificationError` (its `code` and
 * the HTTP `status` to answer) otherwise. An event name this version of the SDK does not know yet
 * (the vocabulary grows additively) still arrives, typed as the union: compare `eventName` with the
 * names you handle and ignore the rest. docs/sdk.md, "Webhooks".
 */
export function constructEvent(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secretOrPublicKey: string | readonly string[],
  options?: VerifyOptions,
): WebhookEvent {
  return constructEnvelope<WebhookEvent & WebhookEnvelope>(rawBody, headers, secretOrPublicKey, options);
}
