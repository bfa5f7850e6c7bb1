import { createHmac, timingSafeEqual } from 'node:crypto';
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
 *   delivery id, the timestamp and the body), else `X-Service-Signature`.
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

/**
 * The headers of a signed delivery, as the service sends them: for a receiver's own tests
 * (sign a body, post it to your endpoint). With several secrets, `webhook-signature`
 * carries one signature per secret and `X-Service-Signature` the first secret's.
 */
export function sign(
  rawBody: string | Uint8Array,
  secret: string | readonly string[],
  args: { id: string; timestamp?: number; eventName?: string },
): Record<string, string> {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const timestamp = args.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    'content-type': 'application/json',
    ...(args.eventName ? { 'x-service-event': args.eventName } : {}),
    'x-service-delivery-id': args.id,
    'x-service-timestamp': String(timestamp),
    'x-service-signature': serviceSignature(secrets[0], rawBody),
    'webhook-id': args.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => standardSignature(s, args.id, timestamp, rawBody)).join(' '),
  };
}

function secretsOf(secret: string | readonly string[]): readonly string[] {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!secrets.length || secrets.some((s) => typeof s !== 'string' || s === ''))
    throw new WebhookVerificationError('invalid_secret', 'no secret to verify with');
  return secrets;
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

/** Checks `webhook-signature` (every `v1,` entry of the space-separated list, against every secret). */
function verifyStandard(body: Buffer, headers: HeaderSource, secrets: readonly string[], options: VerifyOptions) {
  const id = required(headers, 'webhook-id');
  const timestamp = timestampOf(required(headers, 'webhook-timestamp'), 'webhook-timestamp');
  const given = required(headers, 'webhook-signature')
    .split(' ')
    .filter((s) => s.startsWith('v1,'));
  assertFresh(timestamp, options);
  const expected = secrets.map((s) => standardSignature(s, id, timestamp, body));
  // Every comparison runs: how many signatures matched, or which one, does not change the time taken.
  let ok = false;
  for (const e of expected) for (const g of given) ok = safeEqual(g, e) || ok;
  if (!ok) throw new WebhookVerificationError('invalid_signature', 'no webhook-signature matches the secret');
  return { id, timestamp };
}

/** Checks `X-Service-Signature` (the body alone) and the freshness of `X-Service-Timestamp`. */
function verifyService(body: Buffer, headers: HeaderSource, secrets: readonly string[], options: VerifyOptions) {
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
 * (`whsec_…`); pass several while you rotate (any one may match). Returns the delivery's
 * id, timestamp and parsed body; throws a WebhookVerificationError otherwise.
 * De-duplicate on the returned `id` (a ReplayGuard), since deliveries arrive at least once.
 */
export function verify(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): VerifiedWebhook {
  const secrets = secretsOf(secret);
  const body = bytesOf(rawBody);
  const requested = options.scheme ?? 'auto';
  const scheme =
    requested === 'auto' ? (headerOf(headers, 'webhook-signature') !== undefined ? 'standard' : 'service') : requested;
  let checked: { id: string; timestamp: number };
  if (scheme === 'standard') checked = verifyStandard(body, headers, secrets, options);
  else if (scheme === 'service') checked = verifyService(body, headers, secrets, options);
  else {
    const standard = verifyStandard(body, headers, secrets, options);
    const service = verifyService(body, headers, secrets, options);
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
