import { createDb, ensureDatabase, pingDb, prepareSchema } from '@cluster/db';
import { createKafka, createProducer, ensureClusterTopics, kafkaStartProblem, pingKafka } from '@cluster/kafka';
import {
  ConfigError,
  shutdownTelemetry,
  createLogger,
  createMetrics,
  createReadiness,
  createServiceServer,
  createShutdown,
  startStep,
  type Shutdown,
} from '@cluster/platform';
import { buildCore } from './app.ts';
import { CODEHOST_DELIVERY_KEEP_MS } from './features/codehost/service.ts';
import type { CoreConfig } from './config.ts';
import { migrations } from './migrations/index.ts';
import { createOutboxRelay } from '@cluster/outbox';
import { createIdempotencyService } from './features/idempotency/service.ts';
import { createStores } from './stores.ts';

/** Composition root of the core: pools, migrations, topics, relay, server, shutdown phases. */
export async function startCore(
  config: CoreConfig,
): Promise<{ port: number; shutdown: Shutdown; flushOutbox: () => Promise<number> }> {
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
  const logger = createLogger('core', config.logLevel);
  const metrics = createMetrics('core');
  const shutdown = createShutdown(logger, config.shutdownDeadlineMs);

  if (config.createDatabase) await ensureDatabase(config.databaseUrl);
  await prepareSchema(config.databaseUrl, 'core', migrations, config.migrateOnStart);
  const db = createDb(config.databaseUrl, { schema: 'core', application: 'core', logger, timeouts: config.db });

  const kafka = createKafka({
    brokers: config.kafkaBrokers,
    clientId: 'core',
    logger,
    logLevel: config.kafkaClientLogLevel,
    security: config.kafkaSecurity,
  });
  // Kafka is not needed to serve: writes wait in the outbox, so a broker that is down at start delays
  // the topics (and the relay, which retries until they exist), not the service.
  // A refused login, a certificate that does not verify or topics it may not create (KAFKA_MANAGE_TOPICS=false)
  // will not mend by waiting: the start fails, or the process stops if that shows only once the broker is back.
  const topicsStep = await startStep(
    config.manageTopics ? 'creating Kafka topics' : 'checking Kafka topics',
    () => ensureClusterTopics(kafka, config.topicPrefix, { manage: config.manageTopics }),
    { logger, waitMs: config.kafkaStartWaitMs, fatal: kafkaStartProblem },
  );
  topicsStep.done.catch((err: unknown) => shutdown.fail(err));
  const admin = kafka.admin();

  const relay = createOutboxRelay({
    db,
    schema: 'core',
    databaseUrl: config.databaseUrl,
    newProducer: () => createProducer(kafka),
    logger,
    metrics,
    idleMs: config.relayIdleMs,
    topicPrefix: config.topicPrefix,
  });
  relay.start();
  // Every 10 minutes: expired Idempotency-Key answers, and code-host delivery ids past their keep.
  const sweeper = setInterval(
    () => {
      const stores = createStores(db);
      void createIdempotencyService(stores)
        .sweep()
        .catch(() => {});
      void stores.codehost.pruneDeliveries(new Date(Date.now() - CODEHOST_DELIVERY_KEEP_MS)).catch(() => {});
    },
    10 * 60 * 1000,
  );
  sweeper.unref();

  const { routes, trust } = buildCore({ db, serviceKeys: config.serviceKeys, codehostSecretKeys: config.codehostSecretKeys });
  // Ready with Postgres: Kafka's state is shown (core_dependency_up) but never makes core unready.
  const readiness = createReadiness({
    checks: { postgres: () => pingDb(db), kafka: () => pingKafka(admin) },
    required: ['postgres'],
    metrics,
  });
  const server = createServiceServer({
    service: 'core',
    routes,
    trust,
    logger,
    metrics,
    ready: readiness.probe,
  });
  const port = await server.listen(config.port, config.listenHost);
  logger.info({ port }, 'core listening');

  shutdown.add('not_ready', 'readiness', () => server.drain());
  shutdown.add('stop_intake', 'rpc server', () => server.close());
  shutdown.add('drain', 'outbox relay', () => relay.stop());
  shutdown.add('stop_intake', 'start-up retries', () => topicsStep.stop());
  shutdown.add('close', 'readiness checks', () => readiness.stop());
  shutdown.add('close', 'kafka admin', () => admin.disconnect());
  shutdown.add('close', 'postgres pool', () => db.destroy());
  shutdown.add('close', 'timers', () => clearInterval(sweeper));
  shutdown.add('close', 'telemetry', () => shutdownTelemetry());
  return { port, shutdown, flushOutbox: () => relay.flush() };
}
