import { createHash } from 'node:crypto';
import { DomainError, requestContext } from '@cluster/platform';
import type { GatewayContext } from './context.ts';
import type { RouteDef, RouteResult } from './route.ts';

const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

/**
 * Pipeline step 6, the envelope of an Idempotency-Key (docs/decisions-api.md, "How a key holds
 * under every fault"): a POST with the header runs with the key and the request's fingerprint in
 * its request context, so that its route's one backend call carries them (forwardIdempotencyKey of
 * @cluster/platform); the backend that owns the write records the key in the write's transaction
 * and answers a repeat with the stored outcome, which is marked here with `Idempotent-Replayed:
 * true`. Nothing is stored by the gateway. Any other request just runs.
 */
export async function runIdempotent(
  ctx: GatewayContext,
  route: RouteDef,
  rawBody: string,
  run: () => Promise<RouteResult>,
): Promise<RouteResult> {
  const request = requestContext.getStore();
  if (ctx.method !== 'POST' || ctx.headers['idempotency-key'] === undefined || !route.operation || !request) return run();
  const key = ctx.get('idempotency-key');
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError('validation_error', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
      errors: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
    });
  }
  const keyed = (request.idempotency = {
    key,
    fingerprint: createHash('sha256').update(`${ctx.method}\n${ctx.path}\n${rawBody}`).digest('hex'),
    operation: route.operation,
  } as NonNullable<typeof request.idempotency>);
  try {
    const result = await run();
    return keyed.replayed ? { ...result, headers: { ...result.headers, 'Idempotent-Replayed': 'true' } } : result;
  } catch (err) {
    if (keyed.replayed) ctx.set('Idempotent-Replayed', 'true');
    throw err;
  } finally {
    // A second run of the pipeline for this request (a fresh check of the key) carries the key again.
    delete request.idempotency;
  }
}
