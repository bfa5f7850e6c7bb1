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

/** No answer: the connection failed or was dropped on every attempt. `cause` is the last network error. */
export class ApiConnectionError extends Error {
  override readonly name = 'ApiConnectionError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
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
