import { isDevelopmentKey } from '../development-keys.ts';
import { DEVELOPMENT_SWITCH } from './process.ts';
import { ConfigError, optionalStr } from './values.ts';

// Keyrings that seal secrets at rest (32 random bytes each), refused outside development when unfit.

/**
 * Words of a placeholder (the shipped manifest says CHANGE_ME): six letters or more, so
 * a random key contains one by chance less than once in ten million.
 */
const PLACEHOLDER = /change|replace|placeholder|example/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Why one sealing key is unfit for production, or undefined when it is fit: it must be
 * 32 random bytes in base64 (`openssl rand -base64 32`), so a placeholder, a short or
 * malformed value, a value of one repeated byte and a passphrase (bytes that are all
 * printable text) are refused. Never quotes the value.
 */
export function sealingKeyProblem(value: string): string | undefined {
  if (PLACEHOLDER.test(value)) return 'is a placeholder';
  if (!BASE64.test(value)) return 'is not base64';
  const bytes = Buffer.from(value, 'base64');
  const unpadded = (b64: string) => b64.replace(/=+$/, '');
  if (unpadded(bytes.toString('base64')) !== unpadded(value)) return 'is not canonical base64';
  if (bytes.length !== 32) return `decodes to ${bytes.length} bytes, not 32`;
  if (bytes.every((b) => b === bytes[0])) return 'is one byte repeated, not random';
  if (bytes.every((b) => b >= 0x20 && b <= 0x7e)) return 'decodes to text (a passphrase), not random bytes';
  return undefined;
}

/**
 * A sealing keyring: one key, or a comma-separated list during a rotation (the first
 * seals, all open; docs/runbook.md). Unset is undefined (the caller's development key)
 * in development and refused anywhere else, where the first (sealing) key must pass
 * sealingKeyProblem and no entry may be a development key (isDevelopmentKey: a value
 * anyone can read in this repository seals nothing). The other entries only open what
 * they once sealed, so they are otherwise taken as they are (see retiredKeyWarnings).
 * An empty entry or a key listed twice is refused everywhere.
 */
export function sealingKeys(name: string, development: boolean): string[] | undefined {
  const how = '32 random bytes in base64: openssl rand -base64 32';
  const raw = optionalStr(name);
  if (raw === undefined) {
    if (!development) throw new ConfigError(`${name} is required unless ${DEVELOPMENT_SWITCH} (${how})`);
    return undefined;
  }
  const keys = raw.split(',').map((k) => k.trim());
  if (keys.includes('')) throw new ConfigError(`${name} has an empty entry in its comma-separated list`);
  if (new Set(keys).size !== keys.length) throw new ConfigError(`${name} lists the same key twice`);
  if (development) return keys;
  if (keys.some(isDevelopmentKey)) throw developmentKeyError(name);
  const problem = sealingKeyProblem(keys[0]);
  if (problem) {
    const which = keys.length > 1 ? `the first (sealing) key of ${name}` : name;
    throw new ConfigError(`${which} ${problem}; outside development it must be ${how}`);
  }
  return keys;
}

/** A development key given outside development (by fingerprint, in whatever role). */
export function developmentKeyError(name: string): ConfigError {
  return new ConfigError(
    `${name} holds a public development key, refused unless ${DEVELOPMENT_SWITCH}: generate one (openssl rand -base64 32; node scripts/service-keys.mjs)`,
  );
}

/**
 * One warning per retired key of a keyring that would not do as a sealing key: it is
 * accepted (values sealed under it must keep opening, even under a key from before
 * these checks) until a re-seal lets it go. For a production start's log.
 */
export function retiredKeyWarnings(name: string, keys: readonly string[]): string[] {
  return keys.flatMap((key, i) => {
    const problem = i === 0 ? undefined : sealingKeyProblem(key);
    return problem ? [`key ${i + 1} of ${keys.length} of ${name} ${problem}: re-seal and remove it (docs/runbook.md)`] : [];
  });
}
