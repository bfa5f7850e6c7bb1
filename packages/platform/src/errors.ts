import { Code, ConnectError } from '@connectrpc/connect';
import type { JsonObject } from '@bufbuild/protobuf';
import { ErrorInfoSchema } from '@cluster/proto';

/** Machine-readable reasons of the public error body, with their HTTP status. */
export const REASON_STATUS = {
  validation_error: 400,
  unknown_event_names: 400,
  missing_key: 401,
  invalid_key: 401,
  key_revoked: 401,
  unauthorized: 401,
  forbidden: 403,
  scope_violation: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  actor_changed: 409,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limit: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const;

export type Reason = keyof typeof REASON_STATUS;

const REASON_CODE: Record<Reason, Code> = {
  validation_error: Code.InvalidArgument,
  unknown_event_names: Code.InvalidArgument,
  missing_key: Code.Unauthenticated,
  invalid_key: Code.Unauthenticated,
  key_revoked: Code.Unauthenticated,
  unauthorized: Code.Unauthenticated,
  forbidden: Code.PermissionDenied,
  scope_violation: Code.PermissionDenied,
  not_found: Code.NotFound,
  method_not_allowed: Code.Unimplemented,
  request_timeout: Code.DeadlineExceeded,
  conflict: Code.FailedPrecondition,
  actor_changed: Code.FailedPrecondition,
  idempotency_key_in_use: Code.Aborted,
  payload_too_large: Code.InvalidArgument,
  unsupported_media_type: Code.InvalidArgument,
  idempotency_key_reused: Code.FailedPrecondition,
  rate_limit: Code.ResourceExhausted,
  headers_too_large: Code.InvalidArgument,
  internal_error: Code.Internal,
  unavailable: Code.Unavailable,
};

/**
 * A failure with a public reason. Services throw it; the gateway renders it. `remote`: it was
 * decided by the service an RPC went to (fromConnectError), not by the process that holds it.
 */
export class DomainError extends Error {
  constructor(
    readonly reason: Reason,
    message: string,
    readonly details?: JsonObject,
    readonly remote = false,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  get status(): number {
    return REASON_STATUS[this.reason];
  }
}

export const notFound = (what = 'resource'): DomainError => new DomainError('not_found', `${what} not found`);
export const forbidden = (message: string): DomainError => new DomainError('forbidden', message);
export const missingPermission = (permission: string): DomainError =>
  new DomainError('forbidden', `missing permission ${permission}`, { permission });
export const scopeViolation = (message = 'a project-scoped key cannot reach this path'): DomainError =>
  new DomainError('scope_violation', message);
export const conflict = (message: string, details?: JsonObject): DomainError => new DomainError('conflict', message, details);
export const validation = (errors: { path: string; message: string }[]): DomainError =>
  new DomainError('validation_error', errors.map((e) => `${e.path || '/'}: ${e.message}`).join('; '), { errors });

// Postgres SQLSTATEs that say the database cannot serve now, not that the statement is wrong:
// query_canceled (our statement_timeout), lock_not_available (a call's lock_timeout: idempotent-calls.ts),
// the connection exceptions, the server shutting down or starting, too many connections, an idle
// transaction ended by its timeout, and the service's database gone (a failover or restore under way).
const UNAVAILABLE_SQLSTATE = /^(57014|55P03|08...|57P0[123]|53300|25P03|3D000)$/;
// Node's socket errors, for a dependency that refuses, resets or cannot be found.
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// What knex and node-postgres throw for a pool that cannot hand out a connection in time, a
// statement with no answer in time (our query_timeout: a frozen server), and a cut connection.
const UNAVAILABLE_MESSAGE =
  /Timeout acquiring a connection|Query read timeout|^timeout expired$|Connection terminated|connection timeout|not queryable|Connection ended unexpectedly/;

/**
 * True when `err` says a dependency (Postgres) is down, hung or overloaded, rather than that the
 * request or the code is wrong: the call is answered 503 `unavailable`, never 500
 * (docs/runbook.md, "When a dependency fails").
 */
export function isDependencyUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code } = err as { code?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) return true;
  return err.name === 'KnexTimeoutError' || UNAVAILABLE_MESSAGE.test(err.message);
}

/** Converts a DomainError into a ConnectError carrying an ErrorInfo detail. */
export function toConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  if (err instanceof DomainError) {
    return new ConnectError(err.message, REASON_CODE[err.reason], undefined, [
      { desc: ErrorInfoSchema, value: { reason: err.reason, details: err.details } },
    ]);
  }
  if (isDependencyUnavailable(err)) {
    return new ConnectError('a dependency of the service is unavailable', Code.Unavailable, undefined, [
      { desc: ErrorInfoSchema, value: { reason: 'unavailable' } },
    ]);
  }
  return new ConnectError('internal error', Code.Internal, undefined, [
    { desc: ErrorInfoSchema, value: { reason: 'internal_error' } },
  ]);
}

/** Turns an error from an RPC back into a DomainError (the gateway's one exit for backend errors). */
export function fromConnectError(err: unknown): DomainError | undefined {
  if (err instanceof DomainError) return err;
  if (!(err instanceof ConnectError)) return undefined;
  const [info] = err.findDetails(ErrorInfoSchema);
  if (info && info.reason in REASON_STATUS) {
    return new DomainError(info.reason as Reason, err.rawMessage, info.details, true);
  }
  if (err.code === Code.Unavailable || err.code === Code.DeadlineExceeded) {
    // The call's own outcome (refused, reset, past its deadline): nothing a fresh check of the caller could change.
    return new DomainError('unavailable', 'a backend service is unavailable', undefined, true);
  }
  return undefined;
}
