import type { RetryOptions } from './retry.ts';

/** What `createClient` needs: where the API is, a key, and the defaults of every call. */
export interface ClientOptions extends RetryOptions {
  /** The gateway's origin (`https://api.example.com`) or the API's base URL (`.../api/v1`): both work. */
  baseUrl: string;
  /**
   * An API key, sent as `Authorization: Bearer <key>`. Required, unless `headers` carries an
   * `Authorization` or `X-API-Key` of your own, or your `fetch` authenticates the requests.
   */
  apiKey?: string;
  /** Default deadline of a call, its retries and the waits between them included (default 60 s; 0: none). */
  timeoutMs?: number;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** Replaces the global fetch (a proxy agent, a test double). */
  fetch?: (request: Request) => Promise<Response>;
  /** Injected clock and randomness (tests): the waits between attempts, jitter, Retry-After dates. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

/** What `createClient` takes from checked options: the origin every path is appended to, and the headers of every call. */
export interface CheckedOptions {
  origin: string;
  headers: Record<string, string>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** A TypeError naming the option, thrown by `createClient` before any request is made. */
function invalid(option: string, problem: string): TypeError {
  return new TypeError(`createClient: options.${option} ${problem}`);
}

/** `https://host`, `https://host/`, `https://host/api/v1` and `https://host/api/v1/` all give `https://host`. */
function originOf(baseUrl: unknown): string {
  const example = 'the gateway\'s URL, e.g. "https://api.example.com" or "https://api.example.com/api/v1"';
  if (baseUrl === undefined || baseUrl === null || baseUrl === '') throw invalid('baseUrl', `is missing: pass ${example}`);
  if (typeof baseUrl !== 'string') throw invalid('baseUrl', `must be a string, ${example} (got ${typeof baseUrl})`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalid('baseUrl', `is not an absolute URL: ${shown(baseUrl)}; pass ${example}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid('baseUrl', `must be an http: or https: URL (got ${shown(baseUrl)})`);
  if (url.search || url.hash || url.username || url.password)
    throw invalid(
      'baseUrl',
      `must have no query, fragment or credentials (got ${shown(baseUrl)}); the key goes in options.apiKey`,
    );
  return baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
}

function checkNumber(options: Record<string, unknown>, option: string, integer = false) {
  const value = options[option];
  if (value === undefined) return;
  const ok = typeof value === 'number' && value >= 0 && (integer ? Number.isInteger(value) : !Number.isNaN(value));
  if (!ok) throw invalid(option, `must be a non-negative ${integer ? 'integer' : 'number'} (got ${shown(value)})`);
}

/**
 * Checks `createClient`'s options before any request: a missing or malformed `baseUrl`, a missing
 * key (unless the caller authenticates another way), a key that cannot be a header value, numbers
 * that are negative or not numbers, and hooks that are not functions each throw a TypeError naming
 * the option. Without this, a missing `baseUrl` failed inside a string method and a missing key
 * sent `Bearer undefined`.
 */
export function checkClientOptions(options: unknown): CheckedOptions {
  if (!isRecord(options)) throw new TypeError('createClient: options must be an object: createClient({ baseUrl, apiKey })');
  const origin = originOf(options.baseUrl);

  const headers = options.headers;
  if (headers !== undefined) {
    if (!isRecord(headers)) throw invalid('headers', 'must be an object of header names to string values');
    for (const [name, value] of Object.entries(headers))
      if (typeof value !== 'string') throw invalid(`headers[${JSON.stringify(name)}]`, `must be a string (got ${typeof value})`);
  }
  for (const hook of ['fetch', 'sleep', 'random', 'now'])
    if (options[hook] !== undefined && typeof options[hook] !== 'function')
      throw invalid(hook, `must be a function (got ${typeof options[hook]})`);
  checkNumber(options, 'timeoutMs');
  checkNumber(options, 'maxRetries', true);
  checkNumber(options, 'baseDelayMs');
  checkNumber(options, 'maxDelayMs');

  const given = { ...(headers as Record<string, string> | undefined) };
  const apiKey = options.apiKey;
  if (apiKey === undefined || apiKey === null || apiKey === '') {
    const ownAuthorization = Object.keys(given).some((name) => ['authorization', 'x-api-key'].includes(name.toLowerCase()));
    if (!ownAuthorization && options.fetch === undefined)
      throw invalid('apiKey', 'is missing: pass an API key, or your own Authorization header in options.headers');
    return { origin, headers: given };
  }
  if (typeof apiKey !== 'string' || !/^[\x21-\x7e]+$/.test(apiKey))
    throw invalid('apiKey', 'must be a string of printable characters without spaces or line breaks');
  // The key replaces an Authorization header given in options.headers (whatever its case), rather than joining it.
  const others = Object.entries(given).filter(([name]) => name.toLowerCase() !== 'authorization');
  return { origin, headers: { ...Object.fromEntries(others), authorization: `Bearer ${apiKey}` } };
}
