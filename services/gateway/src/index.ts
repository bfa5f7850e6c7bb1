export { startGateway } from './start.ts';
export { readGatewayConfig } from './config.ts';
export { routes } from './routes/index.ts';
export { buildOpenApi } from './http/openapi.ts';
