import { createHmac } from 'node:crypto';

/** The exact headers of one delivery attempt (spec "Request headers of a delivery" + Standard Webhooks). */
export type DeliveryHeaders = Record<string, string>;

export const USER_AGENT = 'Service-Outbound-Webhook/1.0';

/**
 * `X-Service-Signature` value: `sha256=` + hex HMAC-SHA256 of the raw body, keyed
 * with the subscription's secret string exactly as it was handed out.
 */
export function serviceSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The Standard Webhooks key: the base64 part of a `whsec_` secret, decoded (what
 * the standard's verification libraries do with the same secret string).
 */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/** `webhook-signature` value: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * Every header of one attempt, signed over the exact bytes that will be sent. During a rotation's
 * grace period (`previousSecret`), `webhook-signature` carries both signatures, new first,
 * space-separated as the Standard Webhooks spec allows; `X-Service-Signature` (one value by the
 * spec) is the new secret's.
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
  const standard = [secret, ...(previousSecret ? [previousSecret] : [])].map((s) =>
    standardSignature(s, deliveryId, timestamp, body),
  );
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-event': eventName,
    'x-service-delivery-id': deliveryId,
    'x-service-timestamp': String(timestamp),
    'x-service-signature': serviceSignature(secret, body),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard.join(' '),
  };
}
