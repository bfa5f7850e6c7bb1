import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encrypts secrets at rest with AES-256-GCM under a keyring, so a key can be rotated
 * without losing what was sealed (docs/decisions.md, "Sealing keys"). Each 256-bit
 * key is derived with HKDF-SHA256 from configured key material and a purpose (so one
 * key material never yields the same key for two uses), and each ciphertext is bound
 * to an id (additional authenticated data), so a ciphertext copied onto another row
 * does not decrypt.
 */
export interface SecretBox {
  /** Seals under the current key (the keyring's first); the value names that key's id. */
  seal(plaintext: string, boundTo: string): string;
  /** Opens a value sealed under any key of the keyring, or a legacy value (no key id) sealed before keyrings. */
  open(sealed: string, boundTo: string): string;
  /** The keyring's key ids, the current (sealing) one first: logged at start, so a rotation can be checked. */
  readonly keyIds: readonly string[];
}

/** Sealed before keyrings: `v1:iv:tag:ciphertext`, no key id (any key of the ring may open it). */
const LEGACY_VERSION = 'v1';
/** `v2:keyId:iv:tag:ciphertext`. */
const VERSION = 'v2';

interface DerivedKey {
  id: string;
  key: Buffer;
}

/**
 * Derives a key and its id from one key material. The id is a second HKDF output
 * (12 hex digits), never the key itself: the same material always has the same id,
 * so an operator lists keys and never names them.
 */
function deriveKey(material: string, purpose: { salt: string; info: string }): DerivedKey {
  const key = Buffer.from(hkdfSync('sha256', material, purpose.salt, purpose.info, 32));
  const id = Buffer.from(hkdfSync('sha256', material, purpose.salt, `${purpose.info}|key-id`, 6)).toString('hex');
  return { id, key };
}

/** The prefix of every value sealed under key `keyId` (lets a store find values sealed under other keys). */
export function sealedPrefix(keyId: string): string {
  return `${VERSION}:${keyId}:`;
}

function encrypt(key: Buffer, plaintext: string, boundTo: string): string[] {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(boundTo));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')];
}

function decrypt(key: Buffer, [iv, tag, ct]: string[], boundTo: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAAD(Buffer.from(boundTo));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
}

/** A legacy value opens under whichever key of the ring authenticates it (GCM's tag tells). */
function openLegacy(keys: readonly DerivedKey[], parts: string[], boundTo: string): string {
  for (const { key } of keys) {
    try {
      return decrypt(key, parts, boundTo);
    } catch {
      // not this key: try the next
    }
  }
  throw new Error('no key of the keyring opens this sealed secret (sealed before key ids)');
}

/**
 * A box over a keyring of key materials: the first seals, all open. Throws on an
 * empty keyring or one that lists a key twice.
 */
export function createSecretBox(keyring: readonly string[], purpose: { salt: string; info: string }): SecretBox {
  const keys = keyring.map((material) => deriveKey(material, purpose));
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  if (keys.length === 0) throw new Error('a keyring needs at least one key');
  if (byId.size !== keys.length) throw new Error('a keyring lists the same key twice');
  const current = keys[0];
  return {
    keyIds: keys.map((k) => k.id),
    seal(plaintext, boundTo) {
      return [VERSION, current.id, ...encrypt(current.key, plaintext, boundTo)].join(':');
    },
    open(sealed, boundTo) {
      const [version, ...rest] = sealed.split(':');
      if (version === LEGACY_VERSION && rest.length === 3) return openLegacy(keys, rest, boundTo);
      if (version !== VERSION || rest.length !== 4) throw new Error('unrecognised sealed secret');
      const [keyId, ...parts] = rest;
      const key = byId.get(keyId);
      if (!key) throw new Error(`sealed under key ${keyId}, which is not in the keyring`);
      return decrypt(key, parts, boundTo);
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
    keyIds: box.keyIds,
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
