import { OPERATION_RULES } from '@cluster/contracts';
import { createRecoveryService } from './features/recovery/service.ts';
import { createCallLimit } from './features/test-calls/limit.ts';
import { randomUUID } from 'node:crypto';
import { createProducer, topicNames } from '@cluster/kafka';
import { afterCommit } from '@cluster/db';
import { createOutboxRelay } from '@cluster/outbox';
import {
  createActorConfirmation,
  createRpcTransport,
  createTokenSigner,
  createTokenVerifier,
  retiredKeyWarnings,
  withOpenCache,
  type Shutdown,
} from '@cluster/platform';
import { createBackend } from '@cluster/platform/service';
import { createClient } from '@connectrpc/connect';
import { AuditService, AuthService } from '@cluster/proto';
import { buildDeliveryRoutes } from './app.ts';
import { createAuditForwarder } from './audit/forwarder.ts';
import { createAuditOutboxStore } from './audit/store.ts';
import { DEV_SECRET_KEY_MATERIAL, type DeliveryConfig } from './config.ts';
import { createDispatcher } from './dispatch/dispatcher.ts';
import { createRetentionSweeper } from './features/deliveries/retention.ts';
import { createSubscriptionHealth, healthSweepJob } from './features/subscriptions/health.ts';
import { createFanoutConsumer } from './fanout/consumer.ts';
import { createAnswerBox, createWebhookSecretBox } from './shared/webhook-secret-box.ts';
import { createDeliveryMetrics } from './metrics.ts';
import { migrations } from './migrations/index.ts';
import { createHttpSender } from './sender/http-sender.ts';
import { createStores } from './stores.ts';

/**
 * Composition root of the delivery service, on the shared backend (createBackend): stores, outbox
 * relay (subscription events, dead letters), the audit forwarder, the fan-out consumer, the
 * delivery loop, the retention and health sweeps, the RPC routes (app.ts), and their shutdown steps.
 */
export async function startDelivery(config: DeliveryConfig): Promise<{ port: number; shutdown: Shutdown }> {
  const backend = createBackend('delivery', config);
  const { logger, metrics } = backend;

  if (!config.secretKeys) {
    logger.warn('WEBHOOK_SECRET_KEY is unset: signing secrets are sealed with a development key (never do this in production)');
  }
  if (config.allowPrivateDestinations) {
    logger.warn('WEBHOOK_ALLOW_PRIVATE_DESTINATIONS=true: webhooks may target loopback and private addresses');
  }
  const secrets = withOpenCache(createWebhookSecretBox(config.secretKeys ?? [DEV_SECRET_KEY_MATERIAL]));
  logger.info({ keyIds: secrets.keyIds }, 'webhook secret sealing keys (the first seals)');
  if (!config.development) for (const w of retiredKeyWarnings('WEBHOOK_SECRET_KEY', config.secretKeys ?? [])) logger.warn(w);

  const db = await backend.openDatabase(migrations, { poolMax: config.dbPoolMax });
  // Kafka is not needed to send what is due (docs/runbook.md): a broker that is down at start delays
  // the topics and the fan-out, not the service.
  const { kafka, topics: topicsStep } = await backend.connectKafka(config);
  const topics = topicNames(config.topicPrefix);

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
    dbTimeouts: config.db,
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
    timeouts: config.db,
  });

  const coreTransport = createRpcTransport(config.coreUrl, { sign: createTokenSigner(config.serviceKeys), audience: 'core' });
  // Webhook writes queue their audit records with their change (shared/write.ts); this hands them to the core.
  const auditForwarder = createAuditForwarder({
    store: createAuditOutboxStore(db),
    core: createClient(AuditService, coreTransport),
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
    onRequeued: () => afterCommit(() => dispatcher.wake()),
    audited: () => afterCommit(() => auditForwarder.wake()),
    logger,
  });
  const coreAuth = createClient(AuthService, coreTransport);
  const routes = buildDeliveryRoutes({
    recovery,
    stores,
    secrets,
    sender,
    metrics: deliveryMetrics,
    destinations: { production: !config.development, allowPrivate: config.allowPrivateDestinations },
    testLimitPerHour: config.testLimitPerHour,
    retryMaxAgeMs: config.retryMaxAgeMs,
    // Wake-ups of loops that read what a call wrote wait for its commit (a call under an Idempotency-Key is one transaction).
    audited: () => afterCommit(() => auditForwarder.wake()),
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

  const retention = backend.periodicJob(
    createRetentionSweeper({
      stores,
      metrics: deliveryMetrics,
      logger,
      retentionMs: config.retentionDays * 86_400_000,
      intervalMs: config.retentionSweepMs,
    }).job,
  );
  // Every pass also resumes the recoveries a stopped replica left running, and makes due the waiting
  // ordered deliveries whose turn a race with the fan-out missed.
  const healthSweeper = backend.periodicJob(
    healthSweepJob(health, {
      intervalMs: config.healthSweepMs,
      logger,
      also: () => Promise.all([recovery.resumeStale(), stores.deliveryQueue.releaseWaiting()]),
    }),
  );

  relay.start();
  auditForwarder.start();
  retention.start();
  healthSweeper.start();
  dispatcher.start();
  await backend.kafkaStep('starting the fan-out consumer', async () => {
    if (await topicsStep.done) await fanout.start(); // not when stopped first (shutdown)
  });

  const port = await backend.serve({
    routes,
    // The gateway's calls for API keys meet the rules of their routes here too (docs/security.md), for an
    // actor the core confirms is its key's current one (asked once per actor every few seconds).
    trust: {
      verify: createTokenVerifier(config.serviceKeys),
      policyOf: () => ({ callers: ['gateway'] }),
      rules: OPERATION_RULES,
      currentActor: createActorConfirmation((actor) =>
        coreAuth.confirmActor({ actor: { ...actor, requestId: '' } }, { timeoutMs: 5_000 }),
      ),
    },
    sealAnswers: createAnswerBox(config.secretKeys ?? [DEV_SECRET_KEY_MATERIAL]),
    // The fan-out consumer's state is shown (delivery_dependency_up) but never makes delivery unready.
    checks: { consumer: async () => fanout.healthy() },
    stopIntake: { 'fan-out consumer': () => fanout.stop() },
    drain: {
      'delivery loop': () => dispatcher.stop(),
      'outbox relay': () => relay.stop(),
      'audit forwarder': () => auditForwarder.stop(),
      'retention sweeper': () => retention.stop(),
      'health sweeper': () => healthSweeper.stop(),
      recoveries: () => recovery.stop(),
    },
    close: { 'http sender': () => sender.close() },
  });
  return { port, shutdown: backend.shutdown };
}
