import type { ParameterizedContext } from 'koa';
import { setHttpRoute } from '@cluster/platform';
import type { RouteDef } from './route.ts';

/** What the gateway keeps on `ctx.state` for the length of one request. */
export interface GatewayState {
  /** The X-Request-Id answered (the caller's when well-formed). */
  requestId: string;
  /** The matched v1 route, once known: names the request's metrics and span. */
  route?: RouteDef;
  /** The path template of another endpoint that took the request (`/mcp`, `/hooks/github/:organizationId`), for the same. */
  endpoint?: string;
}

/** The Koa context of a gateway request. */
export type GatewayContext = ParameterizedContext<GatewayState>;

/**
 * Names a request by the route that took it, as soon as it is known (an endpoint may write its
 * answer itself, before the middleware around it resumes): its trace span by `template`, the full
 * path template, and its metrics label by the v1 `route`'s path (without /api/v1) or else `template`.
 */
export function nameRequest(ctx: GatewayContext, template: string, route?: RouteDef): void {
  if (route) ctx.state.route = route;
  else ctx.state.endpoint = template;
  setHttpRoute(template);
}
