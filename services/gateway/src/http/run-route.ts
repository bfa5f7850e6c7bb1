import { fromConnectError } from '@cluster/platform';
import type { RouteDef, RouteRequest, RouteResult } from './route.ts';

/** Pipeline step 7: validates and runs the route; a backend's Connect error becomes its DomainError. */
export async function runRoute(route: RouteDef, request: RouteRequest): Promise<RouteResult> {
  try {
    return await route.run(request);
  } catch (err) {
    throw fromConnectError(err) ?? err;
  }
}
