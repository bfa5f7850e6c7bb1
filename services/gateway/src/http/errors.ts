import { DomainError, fromConnectError, type Logger } from '@cluster/platform';
import type { GatewayContext } from './context.ts';

/**
 * The one error exit: writes the spec's error body for a DomainError (or a backend's Connect
 * error); anything else becomes 500 internal_error with the cause logged, never sent.
 */
export function renderError(ctx: GatewayContext, err: unknown, logger: Logger): void {
  const known = err instanceof DomainError ? err : fromConnectError(err);
  if (!known || known.reason === 'internal_error') {
    logger.error({ err, requestId: ctx.state.requestId }, 'unhandled error');
    ctx.status = 500;
    ctx.body = { reason: 'internal_error', message: 'internal error', details: { requestId: ctx.state.requestId } };
    return;
  }
  ctx.status = known.status;
  if (known.reason === 'unknown_event_names') {
    ctx.body = { error: 'unknown_event_names', invalid: (known.details?.invalid as string[]) ?? [] };
    return;
  }
  if (known.reason === 'rate_limit' && known.details?.retryAfter !== undefined) {
    ctx.set('Retry-After', String(Number(known.details.retryAfter)));
    ctx.body = { reason: known.reason, message: known.message, retryAfter: known.details.retryAfter, details: known.details };
    return;
  }
  ctx.body = known.details
    ? { reason: known.reason, message: known.message, details: known.details }
    : { reason: known.reason, message: known.message };
  if (known.status >= 500) {
    // A dependency is down or hung: worth a retry soon (clients that honour Retry-After spread them out).
    ctx.set('Retry-After', '1');
    logger.warn({ reason: known.reason, message: known.message }, 'backend unavailable');
  }
}
