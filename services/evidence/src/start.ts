import { createDb, ensureDatabase, pingDb } from '@cluster/db';
import {
  ConfigError,
  initTelemetry,
  shutdownTelemetry,
  createLogger,
  createMetrics,
  createServiceServer,
  createTokenVerifier,
  createShutdown,
  type Shutdown,
} from '@cluster/platform';
import type { EvidenceConfig } from './config.ts';

/**
 * Composition root of the evidence service. It joins the cluster with health,
 * readiness and metrics; release evidence packages are a separate issue.
 */
export async function startEvidence(config: EvidenceConfig): Promise<{ port: number; shutdown: Shutdown }> {
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
  initTelemetry('evidence', config.telemetry);
  const logger = createLogger('evidence', config.logLevel);
  const metrics = createMetrics('evidence');
  const shutdown = createShutdown(logger, config.shutdownDeadlineMs);
  await ensureDatabase(config.databaseUrl);
  const db = createDb(config.databaseUrl, { schema: 'evidence', application: 'evidence', poolMax: 4, logger });
  await db.raw('CREATE SCHEMA IF NOT EXISTS evidence');
  const server = createServiceServer({
    service: 'evidence',
    routes: () => {},
    trust: { verify: createTokenVerifier(config.serviceKeys), policyOf: () => ({ callers: ['gateway'] }) },
    logger,
    metrics,
    ready: async () => ({ postgres: await pingDb(db) }),
  });
  const port = await server.listen(config.port, config.listenHost);
  logger.info({ port }, 'evidence listening');
  shutdown.add('not_ready', 'readiness', () => server.drain());
  shutdown.add('stop_intake', 'rpc server', () => server.close());
  shutdown.add('close', 'postgres pool', () => db.destroy());
  shutdown.add('close', 'telemetry', () => shutdownTelemetry());
  return { port, shutdown };
}
