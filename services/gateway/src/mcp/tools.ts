import type { RouteDef, ToolExposure } from '../http/route.ts';

/** A tool of the tool-protocol endpoint: a route's `tool` exposure with the route's method and path. */
export type ToolSpec = ToolExposure & Pick<RouteDef, 'method' | 'path'>;

/**
 * The tools of /mcp, in route-table order: every route declared with a `tool` (http/route.ts). A
 * tool is the route itself in another envelope: the same permission check, validation and handler
 * (so the same core operation, audit record and domain event) as the REST call. Two routes may
 * not share a tool name.
 */
export function toolRoutes(routes: readonly RouteDef[]): { spec: ToolSpec; route: RouteDef }[] {
  const seen = new Set<string>();
  return routes.flatMap((route) => {
    if (!route.tool) return [];
    if (seen.has(route.tool.name)) throw new Error(`two routes declare the tool ${route.tool.name}`);
    seen.add(route.tool.name);
    return [{ spec: { ...route.tool, method: route.method, path: route.path }, route }];
  });
}
