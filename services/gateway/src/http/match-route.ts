import { DomainError } from '@cluster/platform';
import { nameRequest, type GatewayContext } from './context.ts';
import type { Matcher, RouteDef } from './route.ts';

/** Where the public API lives. */
export const API_PREFIX = '/api/v1';

/** A request path's route and its params, or (no route) the methods its path allows: none means no such path. */
export type RouteMatch = { route: RouteDef; params: Record<string, string> } | { route?: undefined; allow: string[] };

/** Finds the v1 route of a method and full request path (with the /api/v1 prefix). */
export function findRoute(match: Matcher, method: string, fullPath: string): RouteMatch {
  if (!fullPath.startsWith(`${API_PREFIX}/`)) return { allow: [] };
  const { route, params, allow } = match(method, fullPath.slice(API_PREFIX.length));
  return route ? { route, params } : { allow: [...new Set(allow)] };
}

/**
 * Pipeline step 1: the route of the request, kept on ctx.state.route. No such path is 404
 * not_found; a path without this method is 405 method_not_allowed with `Allow`.
 */
export function matchRoute(ctx: GatewayContext, match: Matcher): { route: RouteDef; params: Record<string, string> } {
  const found = findRoute(match, ctx.method, ctx.path);
  if (!found.route) {
    if (found.allow.length) {
      ctx.set('Allow', found.allow.join(', '));
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
    }
    throw new DomainError('not_found', 'no such route');
  }
  nameRequest(ctx, `${API_PREFIX}${found.route.path}`, found.route);
  return found;
}
