import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPlatformSigner, thumbprint } from './signer.ts';

const seed = (n: number) => Buffer.alloc(32, n);

describe('the platform signer', () => {
  it('signs with the first key and publishes every key under its RFC 7638 thumbprint, the others as retired', () => {
    const signer = createPlatformSigner([seed(1), seed(2)]);
    const [current, retired] = signer.publicKeys();
    expect(retired.kid).not.toBe(current.kid);
    expect([current.retired, retired.retired]).toEqual([false, true]);
    const bytes = Buffer.from('{"a":1}');
    const { kid, signature } = signer.sign(bytes);
    expect(kid).toBe(current.kid);
    const jwk = (x: string) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    expect(verify(null, bytes, jwk(current.x), Buffer.from(signature, 'base64url'))).toBe(true);
    expect(verify(null, bytes, jwk(retired.x), Buffer.from(signature, 'base64url'))).toBe(false);
  });

  it('derives the key id from the public key alone (the RFC 7638 example key)', () => {
    // RFC 8037, appendix A.3: the thumbprint of its example Ed25519 public key.
    expect(thumbprint('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo')).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
  });
});
