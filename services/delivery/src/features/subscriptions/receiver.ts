import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import { WEBHOOK_AUTH_TYPES, WEBHOOK_HEADER_LIMITS } from '@cluster/contracts';
import { validation } from '@cluster/platform';
import type { ReceiverAuth, ReceiverSettings } from '../../sender/receiver.ts';
import { destinationView, mask } from './destination.ts';

type Problem = { path: string; message: string };

/**
 * Header names a subscription may not set (docs/webhooks.md, "Custom headers"): hop-by-hop headers
 * (RFC 9110 §7.6.1), what the HTTP client owns (Host, Content-Length, Transfer-Encoding, Expect), what
 * the delivery itself says (Content-Type, User-Agent, the trace context), and every signature header
 * (the `webhook-` and `X-Service-` families, below).
 */
const DENIED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'expect',
  'user-agent',
  'traceparent',
  'tracestate',
]);
/** Prefixes of the headers the service signs deliveries with (Standard Webhooks and `X-Service-*`). */
const DENIED_PREFIXES = ['webhook-', 'x-service-'];
/** An RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value: visible ASCII, spaces and tabs (no CR, LF or NUL: no header injection). */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** Why a custom header name may not be set, or undefined when it may. */
export function deniedHeaderReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (DENIED_HEADERS.has(lower)) return `${name} is set by the service and may not be overridden`;
  const prefix = DENIED_PREFIXES.find((p) => lower.startsWith(p));
  if (prefix) return `${prefix}* headers carry the delivery's signature and may not be set`;
  return undefined;
}

/** Checks custom headers (an object of name → value); problems point at `/headers/<name>`. */
function checkHeaders(value: unknown, problems: Problem[]): Record<string, string> {
  if (value === null || value === undefined) return {};
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const path = `/headers/${escapePointer(name)}`;
    const v = String(raw);
    if (!TOKEN.test(name) || name.length > WEBHOOK_HEADER_LIMITS.nameLength) {
      problems.push({ path, message: `is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~; at most 100)` });
      continue;
    }
    const denied = deniedHeaderReason(name);
    if (denied) {
      problems.push({ path, message: denied });
      continue;
    }
    if (seen.has(name.toLowerCase())) {
      problems.push({ path, message: 'is given twice (header names are case-insensitive)' });
      continue;
    }
    if (!FIELD_VALUE.test(v) || v.length > WEBHOOK_HEADER_LIMITS.valueLength) {
      problems.push({ path, message: 'must be visible ASCII, spaces or tabs (no line breaks), at most 4096 characters' });
      continue;
    }
    seen.add(name.toLowerCase());
    out[name] = v.trim();
  }
  return out;
}

/** The fields each auth type takes; `required` ones must be present. */
const AUTH_FIELDS: Record<ReceiverAuth['type'], { required: string[]; optional: string[] }> = {
  bearer: { required: ['token'], optional: [] },
  basic: { required: ['username', 'password'], optional: [] },
  oauth2: { required: ['tokenUrl', 'clientId', 'clientSecret'], optional: ['scope', 'audience'] },
  mtls: { required: [], optional: ['certificate', 'privateKey'] },
};

/** What a client certificate says of itself (shown in answers; no secret). */
export interface CertificateInfo {
  subject: string;
  issuer: string;
  notAfter: string;
  fingerprintSha256: string;
}

/**
 * Checks a client certificate and its key (PEM): both parse, the key is the certificate's, and the
 * certificate is valid now. Returns what answers show of it, or a problem.
 */
export function checkClientCertificate(certificate: string, privateKey: string, now = new Date()): CertificateInfo | Problem {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certificate);
  } catch {
    return { path: '/auth/certificate', message: 'is not a PEM certificate' };
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: privateKey, format: 'pem' });
  } catch (err) {
    const encrypted = /passphrase|encrypted/i.test(String((err as Error).message));
    return {
      path: '/auth/privateKey',
      message: encrypted ? 'is encrypted: give the key without a passphrase' : 'is not a PEM private key',
    };
  }
  if (!cert.checkPrivateKey(key)) return { path: '/auth/privateKey', message: 'is not the key of the certificate' };
  if (new Date(cert.validTo) <= now)
    return { path: '/auth/certificate', message: `expired on ${new Date(cert.validTo).toISOString()}` };
  if (new Date(cert.validFrom) > now)
    return { path: '/auth/certificate', message: `is not valid before ${new Date(cert.validFrom).toISOString()}` };
  return certificateInfo(cert);
}

function certificateInfo(cert: X509Certificate): CertificateInfo {
  return {
    subject: cert.subject.replaceAll('\n', ', '),
    issuer: cert.issuer.replaceAll('\n', ', '),
    notAfter: new Date(cert.validTo).toISOString(),
    fingerprintSha256: cert.fingerprint256,
  };
}

/** What checking receiver settings needs of the service. */
export interface ReceiverChecks {
  /** Why a URL may not be called (the destinations' SSRF guard), or undefined. */
  checkUrl(url: string): Promise<string | undefined>;
  /** Whether the platform has a client certificate to present (WEBHOOK_CLIENT_CERT_FILE). */
  platformCertificate: boolean;
}

/** Checks an `auth` object; problems point into `/auth`. */
async function checkAuth(value: unknown, checks: ReceiverChecks, problems: Problem[]): Promise<ReceiverAuth | null> {
  if (value === null || value === undefined) return null;
  const a = value as Record<string, unknown>;
  const type = String(a.type) as ReceiverAuth['type'];
  if (!(WEBHOOK_AUTH_TYPES as readonly string[]).includes(type)) {
    problems.push({ path: '/auth/type', message: `must be one of: ${WEBHOOK_AUTH_TYPES.join(', ')}` });
    return null;
  }
  const { required, optional } = AUTH_FIELDS[type];
  const before = problems.length;
  for (const f of required)
    if (a[f] === undefined || a[f] === '') problems.push({ path: `/auth/${f}`, message: `is required for type ${type}` });
  for (const f of Object.keys(a))
    if (f !== 'type' && !required.includes(f) && !optional.includes(f))
      problems.push({ path: `/auth/${f}`, message: `is not used by type ${type}` });
  for (const f of [...required, ...optional])
    if (typeof a[f] === 'string' && !FIELD_VALUE.test(a[f]) && f !== 'certificate' && f !== 'privateKey')
      problems.push({ path: `/auth/${f}`, message: 'must be visible ASCII, spaces or tabs (no line breaks)' });
  if (problems.length > before) return null;
  const s = (f: string) => a[f] as string;
  switch (type) {
    case 'bearer':
      return { type, token: s('token') };
    case 'basic':
      if (s('username').includes(':')) {
        problems.push({ path: '/auth/username', message: 'must not contain `:` (RFC 7617)' });
        return null;
      }
      return { type, username: s('username'), password: s('password') };
    case 'oauth2': {
      const problem = await checks.checkUrl(s('tokenUrl'));
      if (problem) {
        problems.push({ path: '/auth/tokenUrl', message: problem });
        return null;
      }
      const auth: ReceiverAuth = { type, tokenUrl: s('tokenUrl'), clientId: s('clientId'), clientSecret: s('clientSecret') };
      if (a.scope !== undefined) auth.scope = s('scope');
      if (a.audience !== undefined) auth.audience = s('audience');
      return auth;
    }
    case 'mtls': {
      const hasCert = a.certificate !== undefined;
      if (hasCert !== (a.privateKey !== undefined)) {
        problems.push({
          path: hasCert ? '/auth/privateKey' : '/auth/certificate',
          message: 'certificate and privateKey go together',
        });
        return null;
      }
      if (!hasCert) {
        if (!checks.platformCertificate)
          problems.push({
            path: '/auth/certificate',
            message: 'is required: this deployment has no platform client certificate (WEBHOOK_CLIENT_CERT_FILE)',
          });
        return problems.length > before ? null : { type };
      }
      const info = checkClientCertificate(s('certificate'), s('privateKey'));
      if ('path' in info) {
        problems.push(info);
        return null;
      }
      return { type, certificate: s('certificate'), privateKey: s('privateKey') };
    }
  }
}

/**
 * Checks the `headers` and `auth` of a create or update body (only those present: `given`), each
 * against the rules of docs/webhooks.md, and the two together (`Authorization` is the auth's when
 * one is set). Throws 400 validation_error listing every problem.
 */
export async function checkReceiver(
  body: { headers?: unknown; auth?: unknown },
  checks: ReceiverChecks,
): Promise<Partial<ReceiverSettings>> {
  const problems: Problem[] = [];
  const out: Partial<ReceiverSettings> = {};
  if ('headers' in body) out.headers = checkHeaders(body.headers, problems);
  if ('auth' in body) out.auth = await checkAuth(body.auth, checks, problems);
  if (problems.length) throw validation(problems);
  return out;
}

/** The settings after an update: given parts replace the stored ones; an auth and an `Authorization` header conflict. */
export function mergeReceiver(stored: ReceiverSettings, given: Partial<ReceiverSettings>): ReceiverSettings {
  const merged: ReceiverSettings = {
    headers: given.headers ?? stored.headers,
    auth: given.auth === undefined ? stored.auth : given.auth,
  };
  const destination = given.destination === undefined ? stored.destination : given.destination;
  if (destination) {
    // Headers and auth are HTTP's: a message to a broker carries the signature headers only (docs/webhooks.md, "Destinations").
    const problems = [
      ...(Object.keys(merged.headers).length
        ? [{ path: '/headers', message: `is for HTTP destinations only, not ${destination.type}` }]
        : []),
      ...(merged.auth ? [{ path: '/auth', message: `is for HTTP destinations only, not ${destination.type}` }] : []),
    ];
    if (problems.length) throw validation(problems);
    merged.destination = destination;
  }
  const clash = merged.auth ? Object.keys(merged.headers).find((n) => n.toLowerCase() === 'authorization') : undefined;
  if (clash)
    throw validation([
      { path: `/headers/${clash}`, message: 'conflicts with auth, which sets Authorization: remove the header or the auth' },
    ]);
  return merged;
}

/** What answers show of receiver settings (stored clear in `receiverView`): names and non-secret parts, secrets masked. */
export function receiverView(settings: ReceiverSettings, destinationUrl = ''): JsonObject | null {
  if (!Object.keys(settings.headers).length && !settings.auth && !settings.destination) return null;
  const headers = Object.fromEntries(Object.entries(settings.headers).map(([n, v]) => [n, mask(v)]));
  return {
    headers,
    auth: settings.auth ? authView(settings.auth) : null,
    ...(settings.destination ? { destination: destinationView(destinationUrl, settings.destination) } : {}),
  };
}

function authView(auth: ReceiverAuth): JsonObject {
  switch (auth.type) {
    case 'bearer':
      return { type: auth.type, token: mask(auth.token) };
    case 'basic':
      return { type: auth.type, username: auth.username, password: mask(auth.password) };
    case 'oauth2':
      return {
        type: auth.type,
        tokenUrl: auth.tokenUrl,
        clientId: auth.clientId,
        clientSecret: mask(auth.clientSecret),
        ...(auth.scope !== undefined ? { scope: auth.scope } : {}),
        ...(auth.audience !== undefined ? { audience: auth.audience } : {}),
      };
    case 'mtls': {
      if (!auth.certificate || !auth.privateKey) return { type: auth.type, certificate: { source: 'platform' } };
      return {
        type: auth.type,
        certificate: { source: 'subscription', ...certificateInfo(new X509Certificate(auth.certificate)) },
      };
    }
  }
}
