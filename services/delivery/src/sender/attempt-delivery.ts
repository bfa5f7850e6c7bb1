import { contextFrom, inSpan, type SecretBox } from '@cluster/platform';
import type { DeliverySender } from './destination.ts';
import type { SendResult } from './http-sender.ts';
import { openReceiver, type ReceiverSettings } from './receiver.ts';
import { canSign, deliveryHeaders, type DeliveryHeaders } from './signing.ts';

/**
 * What signing and sending a delivery reads of it (a claimed delivery of the loop, a redelivery, a
 * test call's): the sender knows nothing else of the delivery's record.
 */
export interface SignableDelivery {
  id: string;
  subscriptionId: string;
  eventName: string;
  /** The exact bytes signed and sent. */
  body: string;
  destinationUrl: string;
  secretSealed: string;
  /** The subscription's replaced secret and the end of its grace period (both signatures until then). */
  previousSecretSealed?: string | null;
  previousSecretUntil?: Date | null;
  /** W3C trace context of the event, if it had one. */
  traceparent?: string | null;
  /** The subscription's custom headers and receiver auth, sealed (sender/receiver.ts), or null. */
  receiverSealed?: string | null;
}

/**
 * Signs and sends one delivery, the exact stored bytes, with a timestamp taken at
 * send time (used by the delivery loop and the test call). A secret that cannot be
 * unsealed is a failed attempt, not an exception.
 */
export async function attemptDelivery(
  d: SignableDelivery,
  sender: DeliverySender,
  secrets: SecretBox,
): Promise<{ result: SendResult; attemptedAt: Date }> {
  const attemptedAt = new Date();
  const signed = signDelivery(d, secrets, attemptedAt);
  if ('error' in signed) return unsigned(signed.error);
  const { headers, receiver } = signed;
  // The attempt is a span of the trace the event was written in (the API request that caused it);
  // under it the undici instrumentation's client span sends the POST with its `traceparent`, so the
  // receiver joins that trace (when tracing is on: docs/observability.md).
  const result = await inSpan(
    'delivery',
    'webhook.deliver',
    {
      parent: d.traceparent ? contextFrom({ traceparent: d.traceparent }) : undefined,
      attributes: { 'webhook.delivery_id': d.id, 'webhook.event_name': d.eventName },
    },
    async (span) => {
      const sent = await sender.send(d.destinationUrl, headers, d.body, {
        subscriptionId: d.subscriptionId,
        auth: receiver.auth,
        destination: receiver.destination ?? null,
      });
      span.setAttribute('http.response.status_code', sent.responseCode ?? 0);
      return sent;
    },
  );
  return { result, attemptedAt };
}

/**
 * The headers of one attempt of a delivery, signed at `at`, and its receiver settings: what an HTTP attempt
 * sends, and what a listening CLI's stream carries (features/listen). Or why it cannot be signed.
 */
export function signDelivery(
  d: SignableDelivery,
  secrets: SecretBox,
  at: Date,
): { headers: DeliveryHeaders; receiver: ReceiverSettings } | { error: string } {
  let secret: string;
  try {
    secret = secrets.open(d.secretSealed, d.subscriptionId);
  } catch {
    return { error: 'signing secret could not be unsealed (does WEBHOOK_SECRET_KEY still list the key it was sealed under?)' };
  }
  let receiver: ReceiverSettings;
  try {
    receiver = openReceiver(secrets, d.subscriptionId, d.receiverSealed);
  } catch {
    return {
      error: 'custom headers and auth could not be unsealed (does WEBHOOK_SECRET_KEY still list the key they were sealed under?)',
    };
  }
  try {
    // The custom headers first: none of them may name a header of the delivery (features/subscriptions/receiver.ts).
    const headers = {
      ...receiver.headers,
      ...deliveryHeaders({
        secret,
        previousSecret: previousSecretOf(d, secrets, at),
        deliveryId: d.id,
        eventName: d.eventName,
        body: d.body,
        timestamp: Math.floor(at.getTime() / 1000),
      }),
    };
    return { headers, receiver };
  } catch {
    // A stored key that does not parse (never written so by the service): a failed attempt, not an exception.
    return { error: 'signing key is malformed: rotate the subscription’s secret' };
  }
}

/** A failed attempt that sent nothing: the delivery could not be signed. */
function unsigned(error: string): { result: SendResult; attemptedAt: Date } {
  return { attemptedAt: new Date(), result: { ok: false, responseCode: null, responseBody: null, error, durationMs: 0 } };
}

/**
 * The secret a rotation replaced, while its grace period runs: it signs beside the new one. One
 * that no longer opens (its sealing key retired), or an Ed25519 key that does not parse, is left out
 * rather than failing the attempt.
 */
function previousSecretOf(
  d: Pick<SignableDelivery, 'previousSecretSealed' | 'previousSecretUntil' | 'subscriptionId'>,
  secrets: SecretBox,
  now: Date,
): string | undefined {
  if (!d.previousSecretSealed || !d.previousSecretUntil || new Date(d.previousSecretUntil) <= now) return undefined;
  try {
    const previous = secrets.open(d.previousSecretSealed, d.subscriptionId);
    return canSign(previous) ? previous : undefined;
  } catch {
    return undefined;
  }
}
