import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, sealedPrefix, withOpenCache } from './secret-box.ts';

const PURPOSE = { salt: 'test.salt', info: 'test-secret:v1' };
const A = randomBytes(32).toString('base64');
const B = randomBytes(32).toString('base64');

/** A value exactly as the box sealed it before keyrings (`v1:iv:tag:ct`, no key id), with the same derivation. */
function sealLegacy(material: string, plaintext: string, boundTo: string): string {
  const key = Buffer.from(hkdfSync('sha256', material, PURPOSE.salt, PURPOSE.info, 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(boundTo));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
}

describe('secret box keyring', () => {
  it('seals with the current (first) key, naming its id, and opens with any listed key', () => {
    const old = createSecretBox([A], PURPOSE);
    const rotated = createSecretBox([B, A], PURPOSE);
    expect(rotated.keyIds).toEqual([createSecretBox([B], PURPOSE).keyIds[0], old.keyIds[0]]);
    const underA = old.seal('s-a', 'row-1');
    const underB = rotated.seal('s-b', 'row-1');
    expect(underA.startsWith(sealedPrefix(old.keyIds[0]))).toBe(true);
    expect(underB.startsWith(sealedPrefix(rotated.keyIds[0]))).toBe(true);
    expect(rotated.open(underA, 'row-1')).toBe('s-a');
    expect(rotated.open(underB, 'row-1')).toBe('s-b');
    expect(() => rotated.open(underA, 'row-2')).toThrow(); // still bound to its row
  });

  it('refuses a value sealed under a key that is not listed, naming the key id', () => {
    const underA = createSecretBox([A], PURPOSE).seal('s', 'row-1');
    const onlyB = createSecretBox([B], PURPOSE);
    expect(() => onlyB.open(underA, 'row-1')).toThrow(/not in the keyring/);
    expect(() => onlyB.open(underA.replace(/^v2:[0-9a-f]+:/, `v2:${onlyB.keyIds[0]}:`), 'row-1')).toThrow();
  });

  it('opens legacy values (no key id) with whichever listed key sealed them', () => {
    const legacy = sealLegacy(A, 'from before', 'row-1');
    expect(createSecretBox([A], PURPOSE).open(legacy, 'row-1')).toBe('from before');
    expect(createSecretBox([B, A], PURPOSE).open(legacy, 'row-1')).toBe('from before');
    expect(() => createSecretBox([B], PURPOSE).open(legacy, 'row-1')).toThrow(/no key of the keyring/);
    expect(() => createSecretBox([B, A], PURPOSE).open(legacy, 'row-2')).toThrow();
  });

  it('derives ids per purpose, never equal to the key, and refuses an empty or repeated keyring', () => {
    const id = createSecretBox([A], PURPOSE).keyIds[0];
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(createSecretBox([A], { ...PURPOSE, info: 'other:v1' }).keyIds[0]).not.toBe(id);
    expect(() => createSecretBox([], PURPOSE)).toThrow(/at least one key/);
    expect(() => createSecretBox([A, A], PURPOSE)).toThrow(/twice/);
    expect(() => createSecretBox([A], PURPOSE).open('v3:x:y:z', 'row-1')).toThrow(/unrecognised/);
  });

  it('the open cache passes the keyring through', () => {
    const cached = withOpenCache(createSecretBox([B, A], PURPOSE));
    expect(cached.keyIds).toEqual(createSecretBox([B, A], PURPOSE).keyIds);
    expect(cached.open(sealLegacy(A, 'x', 'row-1'), 'row-1')).toBe('x');
  });
});
