import { routes } from './routes.ts';
import { toolRoutes } from './mcp/tools.ts';

export { startGateway } from './start.ts';
export { readGatewayConfig } from './config.ts';
export { routes } from './routes.ts';
export { buildOpenApi } from './http/openapi.ts';
// The request body caps: the manifests' proxy limits are held to them (test/k8s-manifests.test.ts).
export { BODY_LIMIT } from './http/body.ts';
export { HOOK_BODY_LIMIT } from './http/hooks.ts';
// The tools of /mcp and their input schemas (test/tool-schemas.test.ts proves they agree with the routes).
export { toolRoutes } from './mcp/tools.ts';
export { toolInput } from './mcp/tool-input.ts';
export type { ServiceClients } from './clients.ts';

/** The tools of /mcp (name, title, description, method and path), from the route table. */
export const TOOL_SPECS = toolRoutes(routes).map((t) => t.spec);
