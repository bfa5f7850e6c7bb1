import type { ParameterizedContext } from 'koa';
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
