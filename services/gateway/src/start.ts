import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  shutdownTelemetry,
  createLogger,
  createMetrics,
  createShutdown,
  createTokenSigner,
  type Shutdown,
} from '@cluster/platform';
import { buildGateway } from './app.ts';
import { createClients } from './clients.ts';
import { endEventStreams } from './http/event-stream.ts';
import { answerClientError } from './http/client-error.ts';
import type { GatewayConfig } from './config.ts';
import { createLimiters } from './http/limiters.ts';
import { routes } from './routes.ts';

/** Composition root of the gateway. */
export async function startGateway(config: GatewayConfig): Promise<{ port: number; metricsPort: number; shutdown: Shutdown }> {
  const logger = createLogger('gateway', config.logLevel);
  const metrics = createMetrics('gateway');
  const shutdown = createShutdown(logger, config.shutdownDeadlineMs);
  const clients = createClients(config.services, createTokenSigner(config.serviceKeys), config.backendTimeoutMs);
  const limiters = createLimiters({ redisUrl: config.redisUrl, logger, metrics });
  const limiter = limiters.limiter('requests', config.rateLimitPerMinute);
  const authFailures = limiters.limiter('auth_failures', config.authFailureLimitPerMinute);
  await limiters.connected();

  let draining = false;
  const app = buildGateway({
    clients,
    routes,
    limiter,
    authFailures,
    trustedProxyHops: config.trustedProxyHops,
    mcp: config.mcp,
    logger,
    metrics,
    // Readiness is local (docs/runbook.md): a backend that is down answers its own calls with a fast
    // 503, it does not take the gateway (and the calls that do not need it) out of the Service.
    ready: async () => ({ accepting: !draining }),
  });
  const handle = app.callback();
  const server = http.createServer((req, res) => void handle(req, res));
  // What Node's parser refuses (a 100k query string, broken HTTP) gets the spec's error body too.
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.listenHost, resolve));
  const port = (server.address() as AddressInfo).port;
  // Prometheus scrapes its own port: the public one never answers /metrics.
  const metricsServer = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => metricsServer.listen(config.metricsPort, config.listenHost, resolve));
  const metricsPort = (metricsServer.address() as AddressInfo).port;
  logger.info({ port, metricsPort }, 'gateway listening');

  shutdown.add('not_ready', 'readiness', () => void (draining = true));
  shutdown.add(
    'stop_intake',
    'http server',
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // A listening CLI's stream never ends by itself: ended here, it reconnects to another replica.
        endEventStreams();
      }),
  );
  shutdown.add('close', 'metrics server', () => new Promise<void>((resolve) => metricsServer.close(() => resolve())));
  shutdown.add('close', 'rate limiters', () => limiters.close());
  shutdown.add('close', 'telemetry', () => shutdownTelemetry());
  return { port, metricsPort, shutdown };
}
