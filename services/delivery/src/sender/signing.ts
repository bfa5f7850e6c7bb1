import { isPrivateKey, publicKeyOf, sign } from '@cluster/webhook-verify';

/** The exact headers of one delivery attempt (spec "Request headers of a delivery" + Standard Webhooks). */
export type DeliveryHeaders = Record<string, string>;

export const USER_AGENT = 'Service-Outbound-Webhook/1.0';

/**
 * Every header of one attempt, signed over the exact bytes that will be sent, by the same
 * `sign` that receivers use in their tests (`@cluster/webhook-verify`), so what the service
 * sends and what the package verifies cannot drift. `secret` is an HMAC secret (`whsec_`:
 * Standard Webhooks `v1`) or an Ed25519 private key (`whsk_`: `v1a`). During a rotation's grace
 * period (`previousSecret`), `webhook-signature` carries both signatures, new first,
 * space-separated as the Standard Webhooks spec allows. `X-Service-Signature` (an HMAC of the
 * body, one value by the spec) is sent only when the current secret is an HMAC secret: an
 * ed25519 subscription has no shared secret to key it with. Throws on a key that does not parse.
 */
export function deliveryHeaders(args: {
  secret: string;
  previousSecret?: string;
  deliveryId: string;
  eventName: string;
  body: string;
  timestamp: number;
}): DeliveryHeaders {
  const { secret, previousSecret, deliveryId, eventName, body, timestamp } = args;
  const secrets = previousSecret ? [secret, previousSecret] : [secret];
  return { ...sign(body, secrets, { id: deliveryId, timestamp, eventName }), 'user-agent': USER_AGENT };
}

/** Whether a stored signing secret can sign: an HMAC secret always, a `whsk_` key when it parses. */
export function canSign(secret: string): boolean {
  if (!isPrivateKey(secret)) return true;
  try {
    publicKeyOf(secret);
    return true;
  } catch {
    return false;
  }
}
