export { startGateway } from './start.ts';
export { readGatewayConfig } from './config.ts';
export { routes } from './routes.ts';
export { buildOpenApi } from './http/openapi.ts';
export { TOOL_SPECS } from './mcp/tools.ts';
