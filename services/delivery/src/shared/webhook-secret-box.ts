import { randomBytes } from 'node:crypto';
import { createSecretBox, rawPublicKey, signingKeyFromSeed, type SecretBox } from '@cluster/platform';

/**
 * The box that seals webhook signing secrets: AES-256-GCM under keys derived from
 * WEBHOOK_SECRET_KEY's keyring (the first seals, all open), each ciphertext bound to
 * its subscription id.
 */
export function createWebhookSecretBox(keyring: readonly string[]): SecretBox {
  return createSecretBox(keyring, { salt: 'cluster.delivery', info: 'webhook-secret-at-rest:v1' });
}

/** A new signing secret in the Standard Webhooks format: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A Standard Webhooks Ed25519 key pair: `whsk_` private key (sealed, never shown) and `whpk_` public key (shown). */
export interface SigningKeyPair {
  privateKey: string;
  publicKey: string;
}

/**
 * A new Ed25519 signing key in the Standard Webhooks format: `whsk_` + base64 of the 64-byte
 * secret key (32-byte seed, then the 32-byte public key: the libsodium, Go and tweetnacl layout)
 * and `whpk_` + base64 of the 32-byte public key.
 */
export function newSigningKeyPair(): SigningKeyPair {
  const seed = randomBytes(32);
  const publicKey = rawPublicKey(signingKeyFromSeed(seed));
  return {
    privateKey: `whsk_${Buffer.concat([seed, publicKey]).toString('base64')}`,
    publicKey: `whpk_${publicKey.toString('base64')}`,
  };
}
