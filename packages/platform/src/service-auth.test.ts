import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { reasonOf } from './test-kit.ts';
import {
  TOKEN_TTL_S,
  createTokenSigner,
  createTokenVerifier,
  devServiceKeys,
  publicKeyFromRaw,
  rawPublicKey,
  sameActor,
  signingKeyFromSeed,
  type ActorClaims,
  type ServiceKeys,
} from './service-auth.ts';

const ACTOR: ActorClaims = {
  apiKeyId: 'k1',
  organizationId: 'org-a',
  userId: 'u1',
  role: 'admin',
  scope: 'organization',
  permissions: ['read:project', 'write:project'],
};

/** Verifies as `core` with the development keys, at `now` ms. */
function coreVerifier(now: () => number, keys: ServiceKeys = devServiceKeys('core')) {
  return createTokenVerifier(keys, now);
}

/** A token's `kid` for a signing key, as the signer writes it (a hash of the public half). */
const keyIdFor = (key: KeyObject) => createHash('sha256').update(rawPublicKey(key)).digest('hex').slice(0, 16);

describe('service tokens', () => {
  it('carry the calling service and the actor to the service they are addressed to', async () => {
    const sign = createTokenSigner(devServiceKeys('gateway'));
    const call = await coreVerifier(Date.now)(await sign('core', ACTOR));
    expect(call.caller).toBe('gateway');
    expect(call.actor && sameActor(call.actor, ACTOR)).toBe(true);
    expect((await coreVerifier(Date.now)(await sign('core'))).actor).toBeUndefined();
  });

  it('are reused while they have more than 10 s left, per audience and actor', async () => {
    let now = 1_800_000_000_000;
    const sign = createTokenSigner(devServiceKeys('gateway'), () => now);
    const first = await sign('core', ACTOR);
    expect(await sign('core', { ...ACTOR })).toBe(first);
    expect(await sign('delivery', ACTOR)).not.toBe(first);
    expect(await sign('core', { ...ACTOR, role: 'viewer' })).not.toBe(first);
    now += (TOKEN_TTL_S - 10) * 1000;
    expect(await sign('core', ACTOR)).not.toBe(first);
  });

  it('are refused when expired, addressed to another service, tampered with, or signed by an unknown key', async () => {
    let now = 1_800_000_000_000;
    const sign = createTokenSigner(devServiceKeys('gateway'), () => now);
    const token = await sign('core', ACTOR);
    const verify = coreVerifier(() => now);
    expect((await verify(token)).caller).toBe('gateway');

    // Expired (past its 30 s and the 5 s tolerance), even though it was verified and cached before.
    now += (TOKEN_TTL_S + 6) * 1000;
    expect(await reasonOf(verify(token))).toBe('unauthorized');
    now -= (TOKEN_TTL_S + 6) * 1000;

    expect(await reasonOf(createTokenVerifier(devServiceKeys('delivery'), () => now)(token))).toBe('unauthorized');
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), act: { ...ACTOR, organizationId: 'org-b' } }),
    );
    expect(await reasonOf(verify(`${header}.${forged.toString('base64url')}.${signature}`))).toBe('unauthorized');

    // A key the callee does not list, even under a service name it does.
    const stranger = createTokenSigner(
      { ...devServiceKeys('gateway'), signingKey: signingKeyFromSeed(randomBytes(32)) },
      () => now,
    );
    expect(await reasonOf(verify(await stranger('core', ACTOR)))).toBe('unauthorized');
    expect(await reasonOf(verify('not-a-token'))).toBe('unauthorized');
  });

  it('live TOKEN_TTL_S at most: a token minted with a longer life is refused, even when freshly issued', async () => {
    const now = 1_800_000_000_000;
    const iat = Math.floor(now / 1000);
    const long = await new SignJWT({ act: ACTOR })
      .setProtectedHeader({ alg: 'EdDSA', kid: keyIdFor(devServiceKeys('gateway').signingKey) })
      .setIssuer('gateway')
      .setAudience('core')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 7 * 86_400)
      .sign(devServiceKeys('gateway').signingKey);
    expect(await reasonOf(coreVerifier(() => now)(long))).toBe('unauthorized');
    // The signer's own tokens are within the cap.
    const sign = createTokenSigner(devServiceKeys('gateway'), () => now);
    expect((await coreVerifier(() => now)(await sign('core', ACTOR))).caller).toBe('gateway');
  });

  it('name their issuer by the key that signs them: delivery cannot pass for the gateway', async () => {
    const now = () => 1_800_000_000_000;
    const keys = devServiceKeys('delivery');
    // Delivery's own key, but claiming the gateway's key id: the gateway's public key does not verify it.
    const posing = createTokenSigner({ ...keys, self: 'gateway', signingKey: keys.signingKey }, now);
    expect(await reasonOf(coreVerifier(now)(await posing('core', ACTOR)))).toBe('unauthorized');
    expect((await coreVerifier(now)(await createTokenSigner(keys, now)('core'))).caller).toBe('delivery');
  });

  it('use Ed25519 keys that round-trip through the 32-byte settings', () => {
    const seed = randomBytes(32);
    const raw = rawPublicKey(signingKeyFromSeed(seed));
    expect(raw).toHaveLength(32);
    expect(rawPublicKey(publicKeyFromRaw(raw)).equals(raw)).toBe(true);
    expect(() => signingKeyFromSeed(randomBytes(31))).toThrow();
  });
});

describe('service key rotation', () => {
  it("accepts either of a service's two listed keys, and tells them apart by kid", async () => {
    const now = () => 1_800_000_000_000;
    const oldKey = signingKeyFromSeed(randomBytes(32));
    const newKey = signingKeyFromSeed(randomBytes(32));
    const core: ServiceKeys = {
      ...devServiceKeys('core'),
      publicKeys: [
        { service: 'gateway', key: publicKeyFromRaw(rawPublicKey(oldKey)) },
        { service: 'gateway', key: publicKeyFromRaw(rawPublicKey(newKey)) },
      ],
    };
    for (const signingKey of [oldKey, newKey]) {
      const sign = createTokenSigner({ ...devServiceKeys('gateway'), signingKey }, now);
      expect((await createTokenVerifier(core, now)(await sign('core', ACTOR))).caller).toBe('gateway');
    }
    const dropped = createTokenSigner(devServiceKeys('gateway'), now);
    expect(await reasonOf(createTokenVerifier(core, now)(await dropped('core', ACTOR)))).toBe('unauthorized');
  });
});
