import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomString(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] % ALPHABET.length];
  return out;
}

/**
 * A new API key of the shape `apiKeyPrefixOf` reads (@cluster/contracts): `fbk_<8-char id>_<40-char secret>`, about 238 bits of entropy.
 * The prefix `fbk_<id>` is kept for display and lookup; only a hash of the key is stored.
 */
export function generateApiKey(): { key: string; prefix: string; hash: Buffer } {
  const prefix = `fbk_${randomString(8)}`;
  const key = `${prefix}_${randomString(40)}`;
  return { key, prefix, hash: hashKey(key) };
}

/** sha256 of a whole key: what api_keys stores instead of the key. */
export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Constant-time comparison of a presented key with a stored hash. */
export function keyMatches(key: string, storedHash: Buffer): boolean {
  const h = hashKey(key);
  return h.length === storedHash.length && timingSafeEqual(h, storedHash);
}
