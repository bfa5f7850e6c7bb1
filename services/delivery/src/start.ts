import { createRecoveryService } from './features/recovery/service.ts';
import { createCallLimit } from './features/test-calls/limit.ts';
import { randomUUID } from 'node:crypto';
import { createDb, ensureDatabase, pingDb, prepareSchema } from '@cluster/db';
import { createKafka, createProducer, ensureClusterTopics, kafkaStartProblem, pingKafka, topicNames } from '@cluster/kafka';
import { createOutboxRelay } from '@cluster/outbox';
import {
  ConfigError,
  createRpcTransport,
  shutdownTelemetry,
  createLogger,
  createMetrics,
  createReadiness,
  createServiceServer,
  createTokenSigner,
  createTokenVerifier,
  createShutdown,
  retiredKeyWarnings,
  startStep,
  withOpenCache,
  type Shutdown,
} from '@cluster/platform';
import { createClient } from '@connectrpc/connect';
import { AuditService } from '@cluster/proto';
import { buildDeliveryRoutes } from './app.ts';
import { createAuditForwarder } from './audit/forwarder.ts';
import { createAuditOutboxStore } from './audit/store.ts';
import { DEV_SECRET_KEY_MATERIAL, type DeliveryConfig } from './config.ts';
import { createDispatcher } from './dispatch/dispatcher.ts';
import { createRetentionSweeper } from './features/deliveries/retention.ts';
import { createSubscriptionHealth, startHealthSweeper } from './features/subscriptions/health.ts';
import { createFanoutConsumer } from './fanout/consumer.ts';
import { createWebhookSecretBox } from './shared/webhook-secret-box.ts';
import { createDeliveryMetrics } from './metrics.ts';
import { migrations } from './migrations/index.ts';
import { createHttpSender } from './sender/http-sender.ts';
import { createStores } from './stores.ts';

/**
 * Composition root of the delivery service: pool and migrations, Kafka topics,
 * stores, outbox relay (subscription events, dead letters), the audit forwarder,
 * the fan-out consumer, the delivery loop, the retention sweeper, the RPC server
 * (routes from app.ts), and the shutdown phases that stop them in order.
 */
export async function startDelivery(config: DeliveryConfig): Promise<{ port: number; shutdown: Shutdown }> {
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
  const logger = createLogger('delivery', config.logLevel);
  const metrics = createMetrics('delivery');
  const shutdown = createShutdown(logger, config.shutdownDeadlineMs);

  if (!config.secretKeys) {
    logger.warn('WEBHOOK_SECRET_KEY is unset: signing secrets are sealed with a development key (never do this in production)');
  }
  if (config.allowPrivateDestinations) {
    logger.warn('WEBHOOK_ALLOW_PRIVATE_DESTINATIONS=true: webhooks may target loopback and private addresses');
  }
  const secrets = withOpenCache(createWebhookSecretBox(config.secretKeys ?? [DEV_SECRET_KEY_MATERIAL]));
  logger.info({ keyIds: secrets.keyIds }, 'webhook secret sealing keys (the first seals)');
  if (!config.development) for (const w of retiredKeyWarnings('WEBHOOK_SECRET_KEY', config.secretKeys ?? [])) logger.warn(w);

  if (config.createDatabase) await ensureDatabase(config.databaseUrl);
  await prepareSchema(config.databaseUrl, 'delivery', migrations, config.migrateOnStart);
  const db = createDb(config.databaseUrl, {
    schema: 'delivery',
    application: 'delivery',
    poolMax: 20,
    logger,
    timeouts: config.db,
  });

  const kafka = createKafka({
    brokers: config.kafkaBrokers,
    clientId: 'delivery',
    logger,
    logLevel: config.kafkaClientLogLevel,
    security: config.kafkaSecurity,
  });
  const topics = topicNames(config.topicPrefix);
  // Kafka is not needed to send what is due (docs/runbook.md): a broker that is down at start delays
  // the topics and the fan-out, not the service.
  // A refused login, a certificate that does not verify or topics it may not create (KAFKA_MANAGE_TOPICS=false)
  // will not mend by waiting: the start fails, or the process stops if that shows only once the broker is back.
  const topicsStep = await startStep(
    config.manageTopics ? 'creating Kafka topics' : 'checking Kafka topics',
    () => ensureClusterTopics(kafka, config.topicPrefix, { manage: config.manageTopics }),
    { logger, waitMs: config.kafkaStartWaitMs, fatal: kafkaStartProblem },
  );
  topicsStep.done.catch((err: unknown) => shutdown.fail(err));
  const admin = kafka.admin();

  const stores = createStores(db);
  const deliveryMetrics = createDeliveryMetrics(metrics, stores.deliveryQueue);
  const sender = createHttpSender({
    timeoutMs: config.timeoutMs,
    allowPrivate: config.allowPrivateDestinations,
    production: !config.development,
    maxResponseBytes: config.maxResponseBytes,
    connectionsPerOrigin: config.perDestinationConcurrency,
  });
  const instanceId = randomUUID();
  const health = createSubscriptionHealth(stores, {
    failingAfterFailures: config.failingAfterFailures,
    disableAfterMs: config.disableAfterMs,
  });
  const dispatcher = createDispatcher({
    onGone: health.disableGone,
    deliveries: stores.deliveryQueue,
    attempts: stores.attempts,
    sender,
    secrets,
    logger,
    metrics: deliveryMetrics,
    retry: { baseMs: config.retryBaseMs, maxAgeMs: config.retryMaxAgeMs, maxStepMs: config.retryMaxStepMs },
    concurrency: config.concurrency,
    perDestinationConcurrency: config.perDestinationConcurrency,
    leaseMs: config.leaseMs,
    pollMs: config.pollMs,
    databaseUrl: config.databaseUrl,
    instanceId,
  });
  const relay = createOutboxRelay({
    db,
    schema: 'delivery',
    databaseUrl: config.databaseUrl,
    newProducer: () => createProducer(kafka),
    logger,
    metrics,
    idleMs: 500,
    topicPrefix: config.topicPrefix,
  });

  // Webhook writes queue their audit records with their change (shared/write.ts); this hands them to the core.
  const auditForwarder = createAuditForwarder({
    store: createAuditOutboxStore(db),
    core: createClient(
      AuditService,
      createRpcTransport(config.coreUrl, { sign: createTokenSigner(config.serviceKeys), audience: 'core' }),
    ),
    logger,
    metrics,
  });
  const recovery = createRecoveryService(stores, {
    sender,
    secrets,
    metrics: deliveryMetrics,
    countCall: createCallLimit(stores, { limitPerHour: config.testLimitPerHour }),
    retentionMs: config.retentionDays * 86_400_000,
    leaseMs: config.leaseMs,
    onGone: health.disableGone,
    onRequeued: () => dispatcher.wake(),
    audited: () => auditForwarder.wake(),
    logger,
  });
  const routes = buildDeliveryRoutes({
    recovery,
    stores,
    secrets,
    sender,
    metrics: deliveryMetrics,
    destinations: { production: !config.development, allowPrivate: config.allowPrivateDestinations },
    testLimitPerHour: config.testLimitPerHour,
    retryMaxAgeMs: config.retryMaxAgeMs,
    audited: () => auditForwarder.wake(),
  });

  const groupId = `${config.topicPrefix}delivery`;
  const sessionTimeout = config.kafkaSessionTimeoutMs;
  const fanout = createFanoutConsumer({
    createConsumer: () => kafka.consumer({ groupId, sessionTimeout, heartbeatInterval: 1_000, maxWaitTimeInMs: 200 }),
    topic: topics.domainEvents,
    stores,
    metrics: deliveryMetrics,
    logger,
    onDeliveries: () => dispatcher.wake(),
    instanceId,
    clockSkewMs: config.clockSkewMs,
    handoff: { capacity: dispatcher.capacity, accept: dispatcher.accept, leaseMs: config.leaseMs },
  });

  const retention = createRetentionSweeper({
    stores,
    metrics: deliveryMetrics,
    logger,
    retentionMs: config.retentionDays * 86_400_000,
    intervalMs: config.retentionSweepMs,
  });

  relay.start();
  auditForwarder.start();
  retention.start();
  // Every pass also resumes the recoveries a stopped replica left running, and makes due the waiting
  // ordered deliveries whose turn a race with the fan-out missed.
  const healthSweeper = startHealthSweeper(health, {
    intervalMs: config.healthSweepMs,
    logger,
    also: () => Promise.all([recovery.resumeStale(), stores.deliveryQueue.releaseWaiting()]),
  });
  dispatcher.start();
  const fanoutStep = await startStep(
    'starting the fan-out consumer',
    async () => {
      if (await topicsStep.done) await fanout.start(); // not when stopped first (shutdown)
    },
    { logger, waitMs: config.kafkaStartWaitMs, fatal: kafkaStartProblem },
  );
  fanoutStep.done.catch((err: unknown) => shutdown.fail(err));

  // Ready with Postgres: it sends what is due without Kafka; the broker's and the fan-out consumer's
  // states are shown (delivery_dependency_up) but never make delivery unready.
  const readiness = createReadiness({
    checks: { postgres: () => pingDb(db), kafka: () => pingKafka(admin), consumer: async () => fanout.healthy() },
    required: ['postgres'],
    metrics,
  });
  const server = createServiceServer({
    service: 'delivery',
    routes,
    // The gateway calls for a key whose actor its token carries (and that it authenticated for this very request).
    trust: { verify: createTokenVerifier(config.serviceKeys), policyOf: () => ({ callers: ['gateway'] }) },
    logger,
    metrics,
    ready: readiness.probe,
  });
  const port = await server.listen(config.port, config.listenHost);
  logger.info({ port }, 'delivery listening');

  shutdown.add('not_ready', 'readiness', () => server.drain());
  shutdown.add('stop_intake', 'start-up retries', () => {
    topicsStep.stop();
    fanoutStep.stop();
  });
  shutdown.add('stop_intake', 'fan-out consumer', () => fanout.stop());
  shutdown.add('stop_intake', 'rpc server', () => server.close());
  shutdown.add('drain', 'delivery loop', () => dispatcher.stop());
  shutdown.add('drain', 'outbox relay', () => relay.stop());
  shutdown.add('drain', 'audit forwarder', () => auditForwarder.stop());
  shutdown.add('drain', 'retention sweeper', () => retention.stop());
  shutdown.add('drain', 'health sweeper', () => healthSweeper.stop());
  shutdown.add('drain', 'recoveries', () => recovery.stop());
  shutdown.add('close', 'http sender', () => sender.close());
  shutdown.add('close', 'readiness checks', () => readiness.stop());
  shutdown.add('close', 'kafka admin', () => admin.disconnect());
  shutdown.add('close', 'postgres pool', () => db.destroy());
  shutdown.add('close', 'telemetry', () => shutdownTelemetry());
  return { port, shutdown };
}
