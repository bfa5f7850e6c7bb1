import type { GatewayContext } from './context.ts';
import type { RouteResult } from './route.ts';

/**
 * Pipeline step 8: writes a route's result (status, headers, body; never a body on 204).
 * The body is JSON bytes, written as they are: the gateway never parses or re-serialises a resource.
 */
export function respond(ctx: GatewayContext, result: RouteResult): void {
  ctx.status = result.status;
  for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
  if (result.body === undefined || result.status === 204) return;
  ctx.type = 'application/json';
  ctx.body = Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength);
}
