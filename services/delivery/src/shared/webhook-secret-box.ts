import { randomBytes } from 'node:crypto';
import { createSecretBox, type SecretBox } from '@cluster/platform';

/**
 * The box that seals webhook signing secrets: AES-256-GCM under keys derived from
 * WEBHOOK_SECRET_KEY's keyring (the first seals, all open), each ciphertext bound to
 * its subscription id.
 */
export function createWebhookSecretBox(keyring: readonly string[]): SecretBox {
  return createSecretBox(keyring, { salt: 'cluster.delivery', info: 'webhook-secret-at-rest:v1' });
}

/**
 * The box that seals the answers stored for Idempotency-Keys (a webhook's create and secret rotation
 * answer its secret, shown once): keys derived from the same WEBHOOK_SECRET_KEY keyring for another
 * purpose, each answer bound to its API key and Idempotency-Key (docs/decisions-api.md).
 */
export function createAnswerBox(keyring: readonly string[]): SecretBox {
  return createSecretBox(keyring, { salt: 'cluster.delivery', info: 'idempotent-answer-at-rest:v1' });
}

/** A new signing secret in the Standard Webhooks format: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
