import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { JwtRejected, signEdDsaJwt, verifyEdDsaJwt, type JwtCheck } from './eddsa-jwt.ts';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const NOW = 1_800_000_000_000;
const iat = NOW / 1000;
const check = (over: Partial<JwtCheck> = {}): JwtCheck => ({
  keyFor: (kid) => (kid === 'k1' ? publicKey : kid === 'k2' ? other.publicKey : undefined),
  audience: 'core',
  maxTokenAgeS: 35,
  clockToleranceS: 5,
  now: NOW,
  ...over,
});
const claims = { iss: 'gateway', aud: 'core', iat, exp: iat + 30, act: { organizationId: 'o' } };
const reason = (token: string, over?: Partial<JwtCheck>) => {
  try {
    verifyEdDsaJwt(token, check(over));
    return 'accepted';
  } catch (err) {
    expect(err).toBeInstanceOf(JwtRejected);
    return (err as Error).message;
  }
};

describe('EdDSA JWTs with node:crypto', () => {
  it('are standard JWTs: jose verifies ours, and ours verifies jose’s', async () => {
    const ours = signEdDsaJwt(claims, 'k1', privateKey);
    const { payload, protectedHeader } = await jwtVerify(ours, publicKey, {
      algorithms: ['EdDSA'],
      audience: 'core',
      currentDate: new Date(NOW),
    });
    expect(protectedHeader).toEqual({ alg: 'EdDSA', kid: 'k1' });
    expect(payload).toEqual(claims);

    const theirs = await new SignJWT({ act: { organizationId: 'o' } })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
      .setIssuer('gateway')
      .setAudience(['evidence', 'core'])
      .setIssuedAt(iat)
      .setExpirationTime(iat + 30)
      .sign(privateKey);
    expect(verifyEdDsaJwt(theirs, check())).toEqual({
      kid: 'k1',
      claims: { ...claims, aud: ['evidence', 'core'] },
    });
  });

  it('refuse a bad signature, another key, an unknown kid, another alg, crit, and garbage', () => {
    const token = signEdDsaJwt(claims, 'k1', privateKey);
    const [h, p, s] = token.split('.') as [string, string, string];
    const tampered = Buffer.from(JSON.stringify({ ...claims, act: { organizationId: 'p' } })).toString('base64url');
    expect(reason(`${h}.${tampered}.${s}`)).toBe('bad signature');
    expect(reason(signEdDsaJwt(claims, 'k2', privateKey))).toBe('bad signature');
    expect(reason(signEdDsaJwt(claims, 'k3', privateKey))).toBe('unknown key');
    const header = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    expect(reason(`${header({ alg: 'none', kid: 'k1' })}.${p}.`)).toBe('alg must be EdDSA');
    expect(reason(`${header({ alg: 'EdDSA', kid: 'k1', crit: ['exp'] })}.${p}.${s}`)).toBe('unsupported header parameter');
    expect(reason(`${h}.${p}.${s}x`)).toBe('malformed signature');
    expect(reason(`${h}.${p}`)).toBe('not a compact JWS');
    expect(reason(`e30.${p}.${s}`)).toBe('alg must be EdDSA');
    expect(reason(`bm90IGpzb24.${p}.${s}`)).toBe('not JSON');
    expect(reason(`${header({ alg: 'EdDSA', kid: 'k1' }).slice(0, -1)}WyJ4Il0.${p}.${s}`)).not.toBe('accepted');
  });

  it('check aud, exp, nbf and the age of iat with the clock tolerance, as jose does', () => {
    const at = (over: object) => reason(signEdDsaJwt({ ...claims, ...over }, 'k1', privateKey));
    expect(at({})).toBe('accepted');
    expect(at({ aud: 'delivery' })).toBe('aud mismatch');
    expect(at({ iss: undefined })).toBe('iss missing');
    expect(at({ exp: undefined })).toBe('iat or exp missing');
    expect(at({ iat: '1' })).toBe('iat or exp missing');
    expect(at({ exp: iat - 5 })).toBe('expired');
    expect(at({ exp: iat - 4 })).toBe('accepted');
    expect(at({ nbf: iat + 6 })).toBe('not yet valid');
    expect(at({ nbf: iat + 5 })).toBe('accepted');
    expect(at({ iat: iat + 6 })).toBe('iat in the future');
    expect(at({ iat: iat - 41 })).toBe('too old');
    expect(at({ iat: iat - 40 })).toBe('accepted');
  });
});
