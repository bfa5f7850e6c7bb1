/** When and how long to wait before another attempt: the SDK's retry policy, apart from any I/O. */
export interface RetryOptions {
  /** Attempts after the first (default 3). 0 turns retries off. */
  maxRetries?: number;
  /** The first backoff step (default 500 ms); each retry doubles it, with full jitter. */
  baseDelayMs?: number;
  /** No wait is longer (default 30 s): a Retry-After beyond it ends the call with the error instead. */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * Statuses worth another attempt: the server asked for a pause (429), or the outcome is unknown (any
 * 5xx: 503 from the gateway, 502 or 504 from a proxy in front of it, a 500). Safe for every method:
 * GET, PATCH and DELETE repeat, and a POST carries its Idempotency-Key, under which the write happens
 * at most once (docs/decisions-api.md, "How a key holds under every fault").
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}
/** 409 idempotency_key_in_use: the same call's earlier attempt is still running on the server. */
export const RETRYABLE_REASONS: ReadonlySet<string> = new Set(['idempotency_key_in_use']);

/**
 * Retry-After as milliseconds from `now`: delta-seconds (`"2"`) or an HTTP date; undefined when
 * absent or unreadable; never negative.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/^[A-Za-z]{3},/.test(text)) return undefined; // an HTTP date starts with its day name
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (1 for the first retry): full-jitter exponential backoff,
 * `random() * min(maxDelay, base * 2^(retry-1))`, and never less than the server's Retry-After.
 * Undefined when the server asks for more than `maxDelayMs` (the caller gives up).
 */
export function retryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  options: Required<RetryOptions>,
  random: () => number,
): number | undefined {
  if (retryAfterMs !== undefined && retryAfterMs > options.maxDelayMs) return undefined;
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  const jittered = Math.floor(random() * ceiling);
  return Math.max(retryAfterMs ?? 0, jittered);
}
