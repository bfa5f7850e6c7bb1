export { startGateway } from './start.ts';
export { readGatewayConfig } from './config.ts';
export { routes } from './routes.ts';
export { buildOpenApi } from './http/openapi.ts';
import { routes } from './routes.ts';
import { toolRoutes } from './mcp/tools.ts';
/** The tools of /mcp (name, title, description, method and path), from the route table. */
export const TOOL_SPECS = toolRoutes(routes).map((t) => t.spec);
export { operationRules, operationRulesSource } from './http/operation-rules.ts';
