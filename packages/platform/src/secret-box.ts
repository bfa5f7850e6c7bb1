import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets at rest with AES-256-GCM. The 256-bit key is derived with
 * HKDF-SHA256 from configured key material and a purpose (so one key material never
 * yields the same key for two uses), and each ciphertext is bound to an id
 * (additional authenticated data), so a ciphertext copied onto another row does
 * not decrypt.
 */
export interface SecretBox {
  seal(plaintext: string, boundTo: string): string;
  open(sealed: string, boundTo: string): string;
}

const VERSION = 'v1';

export function createSecretBox(keyMaterial: string, purpose: { salt: string; info: string }): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', keyMaterial, purpose.salt, purpose.info, 32));
  return {
    seal(plaintext, boundTo) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(boundTo));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv.toString('base64'), tag.toString('base64'), ct.toString('base64')].join(':');
    },
    open(sealed, boundTo) {
      const [version, iv, tag, ct] = sealed.split(':');
      if (version !== VERSION || !iv || !tag || ct === undefined) throw new Error('unrecognised sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * Remembers opened secrets (keyed by the sealed value, which changes on every
 * rotation), so the hot path does not run AES-GCM for every attempt. Bounded;
 * the oldest entries go first.
 */
export function withOpenCache(box: SecretBox, max = 10_000): SecretBox {
  const cache = new Map<string, string>();
  return {
    seal: (plaintext, boundTo) => box.seal(plaintext, boundTo),
    open(sealed, boundTo) {
      const key = `${boundTo}|${sealed}`;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const secret = box.open(sealed, boundTo);
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.set(key, secret);
      return secret;
    },
  };
}
