import { createHash, sign } from 'node:crypto';
import { rawPublicKey, signingKeyFromSeed } from '@cluster/platform';

/** A published platform key: its RFC 7638 thumbprint and its 32 raw bytes, both base64url; whether it is retired. */
export interface PlatformPublicKey {
  kid: string;
  x: string;
  /** Every key but the signing one: it signs nothing now (no package, no head). */
  retired: boolean;
}

/**
 * The key id of an Ed25519 public key: its RFC 7638 JWK thumbprint (SHA-256 over the required
 * members in lexicographic order, base64url), so anyone holding the key computes the same id.
 */
export function thumbprint(x: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

/**
 * The platform's evidence signer: Ed25519 keys that no tenant holds (EVIDENCE_SIGNING_KEY). The
 * first seed signs; every seed's public key stays published, so a package signed before a
 * rotation still verifies against the published keys.
 */
export function createPlatformSigner(seeds: readonly Buffer[]) {
  if (seeds.length === 0) throw new Error('the platform signer needs a seed');
  const keys = seeds.map((seed, i) => {
    const privateKey = signingKeyFromSeed(seed);
    const x = rawPublicKey(privateKey).toString('base64url');
    return { privateKey, publicKey: { kid: thumbprint(x), x, retired: i > 0 } };
  });
  const current = keys[0];
  return {
    /** Every public key, the signing one first, the others marked retired. */
    publicKeys(): PlatformPublicKey[] {
      return keys.map((k) => k.publicKey);
    },
    /** The base64url Ed25519 signature of exactly `bytes`, and the id of the key that made it. */
    sign(bytes: Uint8Array): { kid: string; signature: string } {
      return { kid: current.publicKey.kid, signature: sign(null, bytes, current.privateKey).toString('base64url') };
    },
  };
}
export type PlatformSigner = ReturnType<typeof createPlatformSigner>;
