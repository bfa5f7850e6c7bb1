import type { GatewayContext } from './context.ts';
import type { RouteResult } from './route.ts';

/**
 * A stream answer: written as it comes, never cached or buffered by a proxy (`X-Accel-Buffering: no`
 * for nginx-style ones), and destroyed when the client goes away, which ends its backend call.
 */
function respondStream(ctx: GatewayContext, stream: NonNullable<RouteResult['stream']>): void {
  ctx.type = stream.type;
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.req.socket.setNoDelay(true);
  // Koa's default timeout of an idle socket does not apply: the stream pings (event-stream.ts).
  ctx.req.socket.setTimeout(0);
  ctx.res.once('close', () => stream.body.destroy());
  ctx.body = stream.body;
}

/**
 * Pipeline step 8: writes a route's result (status, headers, body; never a body on 204).
 * The body is JSON bytes, written as they are: the gateway never parses or re-serialises a resource.
 */
export function respond(ctx: GatewayContext, result: RouteResult): void {
  ctx.status = result.status;
  for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
  if (result.stream) return respondStream(ctx, result.stream);
  if (result.body === undefined || result.status === 204) return;
  ctx.type = 'application/json';
  ctx.body = Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength);
}
