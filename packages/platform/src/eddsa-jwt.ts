// Compact EdDSA (Ed25519) JWTs signed and verified with node:crypto, synchronously: the service
// tokens of service-auth.ts. jose (the library before this) signs through WebCrypto, an async job
// per token plus a structuredClone of the claims: a sixth of the gateway's CPU profile per API
// write, of which the raw signature is left (about 0.1 ms per write saved: bench/README.md, "Cost
// per event (issue 39)"). The format is RFC 7519 / RFC 8037 as jose writes it, and the tests check
// both ways: jose verifies these tokens, and this verifies jose's.
import { sign, verify, type KeyObject } from 'node:crypto';

/** A JWT's registered and private claims, as JSON. */
export type JwtClaims = Record<string, unknown>;

/** Why a token was refused (the caller maps every one to the same 401). */
export class JwtRejected extends Error {}

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** `header.payload.signature` with `alg: EdDSA` and the signing key's `kid`. */
export function signEdDsaJwt(claims: JwtClaims, kid: string, key: KeyObject): string {
  const input = `${encode({ alg: 'EdDSA', kid })}.${encode(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}

export interface JwtCheck {
  /** The public key for the header's `kid`, or undefined when none is known. */
  keyFor(kid: string): KeyObject | undefined;
  /** The `aud` the token must name (a string, or one of an array). */
  audience: string;
  /** The oldest `iat` accepted, in seconds before now. */
  maxTokenAgeS: number;
  /** Seconds of clock difference tolerated on `exp`, `nbf` and `iat`. */
  clockToleranceS: number;
  /** Now, in milliseconds. */
  now: number;
}

/** The verified header's `kid` and the token's claims; throws JwtRejected on anything else. */
export function verifyEdDsaJwt(token: string, check: JwtCheck): { kid: string; claims: JwtClaims } {
  const parts = token.split('.');
  if (parts.length !== 3) throw new JwtRejected('not a compact JWS');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeObject(headerPart);
  // Only what we sign: EdDSA, a kid, no critical extensions (RFC 7515, 4.1.11), payload base64url.
  if (header.alg !== 'EdDSA') throw new JwtRejected('alg must be EdDSA');
  if (header.crit !== undefined || header.b64 !== undefined) throw new JwtRejected('unsupported header parameter');
  if (typeof header.kid !== 'string') throw new JwtRejected('no kid');
  const key = check.keyFor(header.kid);
  if (!key) throw new JwtRejected('unknown key');
  const signature = Buffer.from(signaturePart, 'base64url');
  if (signature.length !== 64 || signature.toString('base64url') !== signaturePart) throw new JwtRejected('malformed signature');
  if (!verify(null, Buffer.from(`${headerPart}.${payloadPart}`), key, signature)) throw new JwtRejected('bad signature');
  const claims = decodeObject(payloadPart);
  checkClaims(claims, check);
  return { kid: header.kid, claims };
}

function decodeObject(part: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new JwtRejected('not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwtRejected('not a JSON object');
  return value as Record<string, unknown>;
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The registered claims, as jose's jwtVerify checks them with requiredClaims iss, aud, iat, exp. */
function checkClaims(claims: JwtClaims, check: JwtCheck): void {
  const now = Math.floor(check.now / 1000);
  const tolerance = check.clockToleranceS;
  if (typeof claims.iss !== 'string') throw new JwtRejected('iss missing');
  const aud = claims.aud;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (!audiences.includes(check.audience)) throw new JwtRejected('aud mismatch');
  if (!isTime(claims.exp) || !isTime(claims.iat)) throw new JwtRejected('iat or exp missing');
  if (claims.exp <= now - tolerance) throw new JwtRejected('expired');
  if (claims.nbf !== undefined && (!isTime(claims.nbf) || claims.nbf > now + tolerance)) throw new JwtRejected('not yet valid');
  const age = now - claims.iat;
  if (age < -tolerance) throw new JwtRejected('iat in the future');
  if (age - tolerance > check.maxTokenAgeS) throw new JwtRejected('too old');
}
