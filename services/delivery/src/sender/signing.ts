import { createHmac, sign, type KeyObject } from 'node:crypto';
import { signingKeyFromSeed } from '@cluster/platform';

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

/** The prefix of a Standard Webhooks Ed25519 private key (the `v1a` scheme); `whsec_` secrets sign `v1`. */
export const PRIVATE_KEY_PREFIX = 'whsk_';

/** Whether a signing secret is an Ed25519 private key (`whsk_`) rather than an HMAC secret. */
export const isPrivateKey = (secret: string): boolean => secret.startsWith(PRIVATE_KEY_PREFIX);

/**
 * The Ed25519 private key of a `whsk_` secret: base64 of the 64-byte secret key (seed, then public
 * key) or of the bare 32-byte seed; the seed is what signs.
 */
export function ed25519PrivateKey(secret: string): KeyObject {
  const raw = Buffer.from(secret.slice(PRIVATE_KEY_PREFIX.length), 'base64');
  if (raw.length !== 64 && raw.length !== 32) throw new Error('a whsk_ key is base64 of 64 (or 32) bytes');
  return signingKeyFromSeed(raw.subarray(0, 32));
}

/** `webhook-signature` value of the asymmetric scheme: `v1a,` + base64 Ed25519 signature of `id.timestamp.body`. */
export function asymmetricSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1a,${sign(null, Buffer.from(`${id}.${timestamp}.${body}`, 'utf8'), ed25519PrivateKey(secret)).toString('base64')}`;
}

/** One `webhook-signature` entry for a secret of either scheme, told apart by its prefix. */
function signatureFor(secret: string, id: string, timestamp: number, body: string): string {
  return isPrivateKey(secret) ? asymmetricSignature(secret, id, timestamp, body) : standardSignature(secret, id, timestamp, body);
}

/**
 * Every header of one attempt, signed over the exact bytes that will be sent. `secret` is an
 * HMAC secret (`whsec_`: Standard Webhooks `v1`) or an Ed25519 private key (`whsk_`: `v1a`).
 * During a rotation's grace period (`previousSecret`), `webhook-signature` carries both
 * signatures, new first, space-separated as the Standard Webhooks spec allows.
 * `X-Service-Signature` (an HMAC of the body, one value by the spec) is sent only when the
 * current secret is an HMAC secret: an ed25519 subscription has no shared secret to key it with.
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
  const standard = [secret, ...(previousSecret ? [previousSecret] : [])].map((s) => signatureFor(s, deliveryId, timestamp, body));
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-event': eventName,
    'x-service-delivery-id': deliveryId,
    'x-service-timestamp': String(timestamp),
    ...(isPrivateKey(secret) ? {} : { 'x-service-signature': serviceSignature(secret, body) }),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard.join(' '),
  };
}
