import { OPERATIONS } from '@cluster/contracts';
import { HANDLERS, handlerKey } from './handlers.ts';
import { toRoute, type RouteDef } from './http/route.ts';

const unused = Object.keys(HANDLERS).filter((key) => !OPERATIONS.some((o) => handlerKey(o) === key));
if (unused.length) throw new Error(`handlers of no operation: ${unused.join(', ')}`);

/**
 * Every public v1 route: the operation table (OPERATIONS of @cluster/contracts), each operation
 * with its named handler (handlers.ts) or the one derived from its shape. Authentication,
 * permissions, validation, the MCP tools and the OpenAPI document read it; its order is the
 * table's (the OpenAPI paths, the `Allow` header, the first matching path).
 */
export const routes: readonly RouteDef[] = OPERATIONS.map((operation) => toRoute(operation, HANDLERS[handlerKey(operation)]));
