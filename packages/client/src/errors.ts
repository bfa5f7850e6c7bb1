import { REASONS } from './generated/operations.ts';

/** A machine-readable `reason` of the API's error body (the known ones typed; a newer server may send others). */
export type ApiErrorReason = (typeof REASONS)[number] | (string & {});

/** The API's error body: `{reason, message, details?}` (docs/openapi.json, `ErrorBody`). */
export interface ApiErrorBody {
  reason: ApiErrorReason;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * The API answered with an error status. `reason` is the spec's machine-readable code
 * (`not_found`, `validation_error`, `rate_limit`, ...); for `validation_error`, `details.errors`
 * lists every problem with its JSON pointer. The 400 of unknown webhook event names, whose body is
 * `{error, invalid}`, becomes reason `unknown_event_names` with `details.invalid`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly reason: ApiErrorReason;
  readonly details?: Record<string, unknown>;
  /** The body as the server sent it (parsed JSON, or text). */
  readonly body: unknown;
  readonly headers: Headers;
  /** The server's X-Request-Id, to quote to support. */
  readonly requestId?: string;
  /** Retry-After in milliseconds, when the answer had one. */
  readonly retryAfterMs?: number;

  constructor(status: number, body: unknown, headers: Headers, retryAfterMs?: number) {
    const parsed = errorBodyOf(status, body);
    super(`${status} ${parsed.reason}: ${parsed.message}`);
    this.status = status;
    this.reason = parsed.reason;
    this.details = parsed.details;
    this.body = body;
    this.headers = headers;
    this.requestId = headers.get('x-request-id') ?? undefined;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * No answer: the connection failed or was dropped on every attempt. `cause` is the last attempt's
 * error as fetch threw it (Node's `TypeError: fetch failed`, whose own `cause` is the system
 * error); the message and `code` name that root cause (`connect ECONNREFUSED 127.0.0.1:8080`,
 * `getaddrinfo ENOTFOUND api.example.com`), which `fetch failed` alone hides.
 */
export class ApiConnectionError extends Error {
  override readonly name = 'ApiConnectionError';
  /** The root cause's code (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, `UND_ERR_SOCKET`, ...), when it has one. */
  readonly code?: string;
  /** How many attempts were made (the first and its retries). */
  readonly attempts: number;

  constructor(request: string, cause: unknown, attempts: number) {
    const root = rootCauseOf(cause);
    const outer = cause instanceof Error ? cause.message : String(cause);
    const inner = root !== cause && root instanceof Error ? root.message || codeOf(root) : undefined;
    const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
    super(`${request}: ${inner && inner !== outer ? `${outer}: ${inner}` : outer}${tries}`, { cause });
    this.code = codeOf(root) ?? codeOf(cause);
    this.attempts = attempts;
  }
}

/** The innermost error of a `cause` chain; of an AggregateError (every address of a host refused), its first error. */
function rootCauseOf(err: unknown): unknown {
  let current = err;
  for (let depth = 0; depth < 10; depth++) {
    if (current instanceof AggregateError && current.errors.length > 0 && !current.message) current = current.errors[0];
    else if (current instanceof Error && current.cause !== undefined) current = current.cause;
    else break;
  }
  return current;
}

function codeOf(err: unknown): string | undefined {
  return isRecord(err) && typeof err.code === 'string' ? err.code : undefined;
}

/** The call's `timeoutMs` passed (attempts and the waits between them included). */
export class ApiTimeoutError extends Error {
  override readonly name = 'ApiTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`the call did not finish within ${timeoutMs} ms`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function errorBodyOf(status: number, body: unknown): ApiErrorBody {
  if (isRecord(body) && typeof body.reason === 'string') {
    return {
      reason: body.reason,
      message: typeof body.message === 'string' ? body.message : body.reason,
      details: isRecord(body.details) ? body.details : undefined,
    };
  }
  if (isRecord(body) && body.error === 'unknown_event_names') {
    return { reason: 'unknown_event_names', message: 'unknown event names', details: { invalid: body.invalid } };
  }
  return { reason: `http_${status}`, message: typeof body === 'string' && body ? body.slice(0, 200) : `HTTP ${status}` };
}
