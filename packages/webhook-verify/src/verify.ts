import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign as ed25519Sign,
  timingSafeEqual,
  verify as ed25519Verify,
  type KeyObject,
} from 'node:crypto';
import { WebhookVerificationError } from './errors.ts';

/**
 * Request headers in any of the shapes a Node.js server has them: Node's
 * `IncomingHttpHeaders` (lower-case names), a plain record, or a Fetch `Headers`.
 */
export type HeaderSource =
  Record<string, string | readonly string[] | undefined> | { get(name: string): string | null | undefined };

/**
 * Which signature to check.
 * - `auto` (default): the Standard Webhooks `webhook-signature` when present (it binds the
 *   delivery id, the timestamp and the body), else `X-Service-Signature` (never with public keys only).
 * - `standard`: only `webhook-signature`.
 * - `service`: only `X-Service-Signature` (the body alone; its timestamp is not signed).
 * - `both`: both must verify, and name the same delivery and time.
 */
export type SignatureScheme = 'auto' | 'standard' | 'service' | 'both';

/** Options of `verify`. */
export interface VerifyOptions {
  /** Largest allowed distance between the delivery's timestamp and this clock, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Which signature to check (default `auto`). */
  scheme?: SignatureScheme;
  /** This clock, in milliseconds since the epoch (tests; default `Date.now`). */
  now?: () => number;
}

/** What a verified delivery carries, from its headers and its body. */
export interface VerifiedWebhook {
  /** The delivery id (`webhook-id` = `X-Service-Delivery-Id`): the same on every retry; de-duplicate on it. */
  id: string;
  /** When this attempt was signed, Unix seconds. */
  timestamp: number;
  /** `X-Service-Event`, when sent. */
  eventName: string | undefined;
  /** The scheme whose signature was verified. */
  scheme: 'standard' | 'service' | 'both';
  /** The raw body as UTF-8 text, exactly as signed. */
  rawBody: string;
  /** The body parsed as JSON (the webhook envelope). */
  payload: unknown;
}

/** Default timestamp tolerance: 5 minutes, as the API's delivery rules ask. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks Ed25519 keys (`v1a`): the public key verifies, the private key signs. */
const PUBLIC_KEY_PREFIX = 'whpk_';
const PRIVATE_KEY_PREFIX = 'whsk_';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** One header's value, or undefined; a repeated header counts as absent (it is ambiguous). */
export function headerOf(headers: HeaderSource, name: string): string | undefined {
  const getter = (headers as { get?: unknown }).get;
  const value =
    typeof getter === 'function'
      ? (getter as (n: string) => string | null | undefined).call(headers, name)
      : lookup(headers as Record<string, string | readonly string[] | undefined>, name);
  if (typeof value !== 'string' || value === '') return undefined;
  return value;
}

function lookup(record: Record<string, string | readonly string[] | undefined>, name: string) {
  const direct = record[name];
  if (direct !== undefined) return Array.isArray(direct) ? undefined : (direct as string);
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? undefined : (value as string | undefined);
}

function required(headers: HeaderSource, name: string): string {
  const value = headerOf(headers, name);
  if (value === undefined) throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  return value;
}

/** Bytes of a body given as text or bytes. */
function bytesOf(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Constant-time equality of two strings (false, without comparing, when the lengths differ). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The Standard Webhooks key of a secret: the base64 after `whsec_` (or the whole string
 * without the prefix), decoded, as the standard's libraries do.
 */
export function standardWebhooksKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!encoded || !BASE64.test(encoded) || encoded.length % 4 === 1)
    throw new WebhookVerificationError('invalid_secret', 'the secret is not base64 after its whsec_ prefix');
  return Buffer.from(encoded, 'base64');
}

/** `X-Service-Signature`: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the secret string as given. */
export function serviceSignature(secret: string, rawBody: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(bytesOf(rawBody)).digest('hex')}`;
}

/** One Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`. */
export function standardSignature(secret: string, id: string, timestamp: number, rawBody: string | Uint8Array): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestamp}.`).update(bytesOf(rawBody));
  return `v1,${mac.digest('base64')}`;
}

/** Whether a key is an Ed25519 public key (`whpk_…`), which verifies `v1a` signatures. */
export const isPublicKey = (key: string): boolean => key.startsWith(PUBLIC_KEY_PREFIX);

/** Whether a secret is an Ed25519 private key (`whsk_…`), which signs `v1a` (a sender's, never a receiver's). */
export const isPrivateKey = (key: string): boolean => key.startsWith(PRIVATE_KEY_PREFIX);

/** Base64 after a prefix, decoded, or an `invalid_secret` error naming what was expected. */
function decodedKey(key: string, prefix: string, lengths: readonly number[], what: string): Buffer {
  const encoded = key.slice(prefix.length);
  const raw = BASE64.test(encoded) && encoded.length % 4 !== 1 ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (!lengths.includes(raw.length))
    throw new WebhookVerificationError(
      'invalid_secret',
      `the ${what} is not base64 of ${lengths.join(' or ')} bytes after ${prefix}`,
    );
  return raw;
}

/** The Ed25519 public key of a `whpk_` key: base64 of its 32 bytes. Throws `invalid_secret` for anything else. */
export function ed25519PublicKey(publicKey: string): KeyObject {
  if (!isPublicKey(publicKey)) throw new WebhookVerificationError('invalid_secret', 'an Ed25519 public key starts with whpk_');
  const raw = decodedKey(publicKey, PUBLIC_KEY_PREFIX, [32], 'public key');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

/** The Ed25519 private key of a `whsk_` key: base64 of the 64-byte secret key (seed, then public key) or of the 32-byte seed. */
function ed25519PrivateKey(privateKey: string): KeyObject {
  const raw = decodedKey(privateKey, PRIVATE_KEY_PREFIX, [64, 32], 'private key');
  const seed = raw.subarray(0, 32);
  const x = raw.length === 64 ? raw.subarray(32) : derivedPublic(seed);
  return createPrivateKey({
    key: { kty: 'OKP', crv: 'Ed25519', d: seed.toString('base64url'), x: x.toString('base64url') },
    format: 'jwk',
  });
}

/** The public half of a 32-byte seed (a JWK private key needs it). */
function derivedPublic(seed: Buffer): Buffer {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const jwk = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'jwk' });
  return Buffer.from(jwk.x as string, 'base64url');
}

/**
 * A new Ed25519 key pair in the Standard Webhooks format, for a receiver's tests (sign with the
 * `whsk_` private key, verify with the `whpk_` public key): the service makes its own and shows only the public key.
 */
export function generateSigningKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d as string, 'base64url');
  const pub = Buffer.from(jwk.x as string, 'base64url');
  return {
    privateKey: `${PRIVATE_KEY_PREFIX}${Buffer.concat([seed, pub]).toString('base64')}`,
    publicKey: `${PUBLIC_KEY_PREFIX}${pub.toString('base64')}`,
  };
}

/** The `whpk_` public key of a `whsk_` private key. */
export function publicKeyOf(privateKey: string): string {
  const jwk = createPublicKey(ed25519PrivateKey(privateKey)).export({ format: 'jwk' });
  return `${PUBLIC_KEY_PREFIX}${Buffer.from(jwk.x as string, 'base64url').toString('base64')}`;
}

/** One asymmetric Standard Webhooks signature: `v1a,` + base64 Ed25519 signature of `id.timestamp.body`, under a `whsk_` key. */
export function asymmetricSignature(privateKey: string, id: string, timestamp: number, rawBody: string | Uint8Array): string {
  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), bytesOf(rawBody)]);
  return `v1a,${ed25519Sign(null, content, ed25519PrivateKey(privateKey)).toString('base64')}`;
}

/**
 * The headers of a signed delivery, as the service sends them: for a receiver's own tests
 * (sign a body, post it to your endpoint). With several secrets, `webhook-signature`
 * carries one signature per secret. A `whsk_` private key signs `v1a` (an ed25519
 * subscription); a `whsec_` secret `v1`. `X-Service-Signature` is the first secret's, sent
 * only when that is an HMAC secret (as the service does).
 */
export function sign(
  rawBody: string | Uint8Array,
  secret: string | readonly string[],
  args: { id: string; timestamp?: number; eventName?: string },
): Record<string, string> {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const timestamp = args.timestamp ?? Math.floor(Date.now() / 1000);
  const signed = (s: string) =>
    isPrivateKey(s) ? asymmetricSignature(s, args.id, timestamp, rawBody) : standardSignature(s, args.id, timestamp, rawBody);
  return {
    'content-type': 'application/json',
    ...(args.eventName ? { 'x-service-event': args.eventName } : {}),
    'x-service-delivery-id': args.id,
    'x-service-timestamp': String(timestamp),
    ...(isPrivateKey(secrets[0]) ? {} : { 'x-service-signature': serviceSignature(secrets[0], rawBody) }),
    'webhook-id': args.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map(signed).join(' '),
  };
}

/** What verifies: HMAC secrets (`v1`, `X-Service-Signature`) and Ed25519 public keys (`v1a`). */
interface Keys {
  secrets: readonly string[];
  publicKeys: readonly KeyObject[];
}

function keysOf(secret: string | readonly string[]): Keys {
  const all = typeof secret === 'string' ? [secret] : secret;
  if (!all.length || all.some((s) => typeof s !== 'string' || s === ''))
    throw new WebhookVerificationError('invalid_secret', 'no secret to verify with');
  if (all.some(isPrivateKey))
    throw new WebhookVerificationError(
      'invalid_secret',
      'a whsk_ private key does not belong on a receiver: verify with the subscription’s whpk_ public key',
    );
  return {
    secrets: all.filter((s) => !isPublicKey(s)),
    publicKeys: all.filter(isPublicKey).map(ed25519PublicKey),
  };
}

function timestampOf(value: string, name: string): number {
  if (!/^\d{1,12}$/.test(value))
    throw new WebhookVerificationError('invalid_timestamp', `the ${name} header is not Unix seconds`);
  return Number(value);
}

function assertFresh(timestamp: number, options: VerifyOptions): void {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(now - timestamp) > tolerance)
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `the timestamp is ${now - timestamp} s from this clock (tolerance ${tolerance} s)`,
    );
}

/**
 * Checks `webhook-signature`: every `v1,` entry of the space-separated list against every HMAC
 * secret, every `v1a,` entry against every Ed25519 public key; any match is enough.
 */
function verifyStandard(body: Buffer, headers: HeaderSource, keys: Keys, options: VerifyOptions) {
  const id = required(headers, 'webhook-id');
  const timestamp = timestampOf(required(headers, 'webhook-timestamp'), 'webhook-timestamp');
  const entries = required(headers, 'webhook-signature').split(' ');
  assertFresh(timestamp, options);
  const given = entries.filter((s) => s.startsWith('v1,'));
  const expected = keys.secrets.map((s) => standardSignature(s, id, timestamp, body));
  // Every comparison runs: how many signatures matched, or which one, does not change the time taken.
  let ok = false;
  for (const e of expected) for (const g of given) ok = safeEqual(g, e) || ok;
  if (keys.publicKeys.length) {
    const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
    for (const entry of entries) {
      if (!entry.startsWith('v1a,')) continue;
      const signature = Buffer.from(entry.slice(4), 'base64');
      if (signature.length !== 64) continue;
      for (const key of keys.publicKeys) ok = ed25519Verify(null, content, key, signature) || ok;
    }
  }
  if (!ok) throw new WebhookVerificationError('invalid_signature', 'no webhook-signature matches the secret or public key');
  return { id, timestamp };
}

/** Checks `X-Service-Signature` (the body alone) and the freshness of `X-Service-Timestamp`. */
function verifyService(body: Buffer, headers: HeaderSource, { secrets }: Keys, options: VerifyOptions) {
  if (!secrets.length)
    throw new WebhookVerificationError(
      'invalid_secret',
      'X-Service-Signature is an HMAC: it needs the hmacSecret (an ed25519 subscription sends only webhook-signature)',
    );
  const id = required(headers, 'x-service-delivery-id');
  const timestamp = timestampOf(required(headers, 'x-service-timestamp'), 'x-service-timestamp');
  const given = required(headers, 'x-service-signature');
  assertFresh(timestamp, options);
  let ok = false;
  for (const s of secrets) ok = safeEqual(given, serviceSignature(s, body)) || ok;
  if (!ok) throw new WebhookVerificationError('invalid_signature', 'X-Service-Signature does not match the secret');
  return { id, timestamp };
}

/**
 * Verifies one webhook delivery before anything acts on it: the signature over the exact
 * raw body (constant-time), the timestamp within `toleranceSeconds`, and (scheme `both`)
 * that both schemes name the same delivery. `secret` is the `hmacSecret` you were given
 * (`whsec_…`), or for an ed25519 subscription its `publicKey` (`whpk_…`: `v1a` signatures); pass
 * several while you rotate (any one may match). Returns the delivery's
 * id, timestamp and parsed body; throws a WebhookVerificationError otherwise.
 * De-duplicate on the returned `id` (a ReplayGuard), since deliveries arrive at least once.
 */
export function verify(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): VerifiedWebhook {
  const keys = keysOf(secret);
  const body = bytesOf(rawBody);
  const requested = options.scheme ?? 'auto';
  // Public keys alone can only check webhook-signature: `auto` never falls back to the HMAC header then.
  const standardFirst = headerOf(headers, 'webhook-signature') !== undefined || keys.secrets.length === 0;
  const scheme = requested === 'auto' ? (standardFirst ? 'standard' : 'service') : requested;
  let checked: { id: string; timestamp: number };
  if (scheme === 'standard') checked = verifyStandard(body, headers, keys, options);
  else if (scheme === 'service') checked = verifyService(body, headers, keys, options);
  else {
    const standard = verifyStandard(body, headers, keys, options);
    const service = verifyService(body, headers, keys, options);
    if (standard.id !== service.id || standard.timestamp !== service.timestamp)
      throw new WebhookVerificationError('header_mismatch', 'webhook-id/-timestamp and X-Service-Delivery-Id/-Timestamp differ');
    checked = standard;
  }
  const text = body.toString('utf8');
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the body is not JSON');
  }
  return { ...checked, eventName: headerOf(headers, 'x-service-event'), scheme, rawBody: text, payload };
}
