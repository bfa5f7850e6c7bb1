import { randomUUID } from 'node:crypto';
import type { Knex } from '@cluster/db';
import { createProducer, topicNames } from '@cluster/kafka';
import { afterCommit } from '@cluster/db';
import { createOutboxRelay } from '@cluster/outbox';
import { retiredKeyWarnings, withOpenCache, type ActorClaims } from '@cluster/platform';
import type { Backend, Kafka, ServeOptions } from '@cluster/platform/service';
import { createClient, type Transport } from '@connectrpc/connect';
import { AuditService } from '@cluster/proto';
import { buildDeliveryRoutes } from './app.ts';
import { createAuditForwarder } from './audit/forwarder.ts';
import { createAuditOutboxStore } from './audit/store.ts';
import { DEV_SECRET_KEY_MATERIAL, type DeliveryConfig } from './config.ts';
import { createDispatcher } from './dispatch/dispatcher.ts';
import { orderedReleaseJob } from './features/deliveries/ordered-release.ts';
import { createPartitionKeeper, createRetentionSweeper } from './features/deliveries/retention.ts';
import { createPortalService, portalSweepJob } from './features/portal/service.ts';
import { createRecoveryService, recoveryResumeJob } from './features/recovery/service.ts';
import { createSubscriptionHealth, healthSweepJob } from './features/subscriptions/health.ts';
import { createCallLimit } from './features/test-calls/limit.ts';
import { createListenService } from './features/listen/service.ts';
import { createListenStore } from './features/listen/store.ts';
import { createFanoutConsumer } from './fanout/consumer.ts';
import { createDeliveryMetrics } from './metrics.ts';
import { createHttpSender } from './sender/http-sender.ts';
import { createDeliverySender } from './sender/destination.ts';
import { createKafkaDestination } from './sender/kafka-destination.ts';
import { createAmqpDestination } from './sender/amqp-destination.ts';
import { createSqsDestination } from './sender/sqs-destination.ts';
import { createWebhookSecretBox } from './shared/webhook-secret-box.ts';
import { createStores } from './stores.ts';

/** What the delivery worker is built on (made in start.ts). */
export interface DeliveryWorkerDeps {
  config: DeliveryConfig;
  backend: Pick<Backend, 'logger' | 'metrics' | 'periodicJob'>;
  db: Knex;
  kafka: Kafka;
  /** The core's Connect transport: audit records of webhook writes are forwarded there. */
  core: Transport;
  /** The key's current actor, from the core (refuses a revoked key): a listener's stream is checked with it. */
  currentActor?: (claims: ActorClaims) => Promise<ActorClaims>;
}

/** The delivery service's work, unstarted: its routes, what start.ts starts, and its steps of each shutdown phase. */
export interface DeliveryWorker extends Required<Pick<ServeOptions, 'routes' | 'checks' | 'stopIntake' | 'drain' | 'close'>> {
  /** Starts the outbox relay, the audit forwarder, the periodic jobs and the delivery loop. */
  start(): void;
  /** Joins the fan-out consumer's group (a Kafka start-up step: after the topics exist). */
  startFanout(): Promise<void>;
}

/**
 * The delivery service's composition of parts: stores, the outbox relay (subscription events, dead
 * letters), the audit forwarder, the fan-out consumer, the delivery loop, redeliveries and recoveries,
 * the periodic jobs (retention, subscription health, stale recoveries, waiting ordered deliveries) and
 * the RPC routes (app.ts). (The pool, Kafka client and server are made in start.ts.)
 */
export function createDeliveryWorker({ config, backend, db, kafka, core, currentActor }: DeliveryWorkerDeps): DeliveryWorker {
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

  const topics = topicNames(config.topicPrefix);
  const stores = createStores(db);
  const deliveryMetrics = createDeliveryMetrics(metrics, stores.deliveryQueue);
  const http = createHttpSender({
    timeoutMs: config.timeoutMs,
    allowPrivate: config.allowPrivateDestinations,
    production: !config.development,
    maxResponseBytes: config.maxResponseBytes,
    connectionsPerOrigin: config.perDestinationConcurrency,
    clientCertificate: config.clientCertificate,
  });
  // The send step: HTTP, or the subscription's broker destination (docs/webhooks.md, "Destinations").
  const brokerOptions = { timeoutMs: config.timeoutMs, allowPrivate: config.allowPrivateDestinations };
  const sender = createDeliverySender(http, {
    kafka: createKafkaDestination(brokerOptions),
    amqp: createAmqpDestination(brokerOptions),
    sqs: createSqsDestination(brokerOptions),
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
    retry: {
      baseMs: config.retryBaseMs,
      maxAgeMs: config.retryMaxAgeMs,
      maxStepMs: config.retryMaxStepMs,
      maxPauseMs: config.retryAfterMaxMs,
    },
    concurrency: config.concurrency,
    perDestinationConcurrency: config.perDestinationConcurrency,
    leaseMs: config.leaseMs,
    pollMs: config.pollMs,
    databaseUrl: config.databaseUrl,
    dbTimeouts: config.db,
    instanceId,
    onNotified: () => listen.wake(),
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

  // Webhook writes queue their audit records with their change (shared/write.ts); this hands them to the core.
  const auditForwarder = createAuditForwarder({
    store: createAuditOutboxStore(db),
    core: createClient(AuditService, core),
    logger,
    metrics,
  });
  // Wake-ups of loops that read what a call wrote wait for its commit (a call under an Idempotency-Key is one transaction).
  const audited = () => afterCommit(() => auditForwarder.wake());
  const recovery = createRecoveryService(stores, {
    sender,
    secrets,
    metrics: deliveryMetrics,
    countCall: createCallLimit(stores, { limitPerHour: config.testLimitPerHour }),
    retentionMs: config.retentionDays * 86_400_000,
    leaseMs: config.leaseMs,
    onGone: health.disableGone,
    onRequeued: () => afterCommit(() => dispatcher.wake()),
    audited,
    logger,
  });
  // Listening CLIs' streams (GET /webhooks/listen): their temporary subscriptions' deliveries go down the stream.
  const listen = createListenService(stores, {
    store: createListenStore(db),
    secrets,
    metrics: deliveryMetrics,
    replicaId: instanceId,
    leaseMs: config.leaseMs,
    pollMs: config.pollMs,
    currentActor,
    audited,
  });
  const routes = buildDeliveryRoutes({
    recovery,
    listen,
    stores,
    secrets,
    sender,
    metrics: deliveryMetrics,
    destinations: { production: !config.development, allowPrivate: config.allowPrivateDestinations },
    testLimitPerHour: config.testLimitPerHour,
    disableAfterMs: config.disableAfterMs,
    audited,
  });

  const groupId = `${config.topicPrefix}delivery`;
  const sessionTimeout = config.kafkaSessionTimeoutMs;
  const fanout = createFanoutConsumer({
    createConsumer: () => kafka.consumer({ groupId, sessionTimeout, heartbeatInterval: 1_000, maxWaitTimeInMs: 200 }),
    topic: topics.domainEvents,
    stores,
    metrics: deliveryMetrics,
    logger,
    onDeliveries: () => {
      dispatcher.wake();
      listen.wake();
    },
    instanceId,
    clockSkewMs: config.clockSkewMs,
    handoff: { capacity: dispatcher.capacity, accept: dispatcher.accept, leaseMs: config.leaseMs },
  });

  // Upkeep of every replica, each a named job with its own failures and last success (docs/runbook.md).
  const jobs = {
    'retention sweeper': createRetentionSweeper({
      stores,
      metrics: deliveryMetrics,
      logger,
      retentionMs: config.retentionDays * 86_400_000,
      intervalMs: config.retentionSweepMs,
    }).job,
    // The delivery log's weekly partitions, made ahead of their week (migration 018), whatever the retention.
    'partition keeper': createPartitionKeeper({
      stores,
      metrics: deliveryMetrics,
      logger,
      intervalMs: config.retentionSweepMs,
    }).job,
    'health sweeper': healthSweepJob(health, { intervalMs: config.healthSweepMs, logger }),
    // Recoveries a stopped replica left running, and waiting ordered deliveries whose turn a race with
    // the fan-out missed: on the health sweep's beat.
    'recovery resumption': recoveryResumeJob(recovery, config.healthSweepMs),
    'ordered release': orderedReleaseJob(stores.deliveryQueue, config.healthSweepMs),
    // Temporary subscriptions of listeners whose replica died mid-stream (their lease lapsed).
    'listen sweep': listen.sweepJob(config.healthSweepMs),
    'portal sweep': portalSweepJob(createPortalService(stores), config.retentionSweepMs),
  };
  const periodic = Object.entries(jobs).map(([step, job]) => [step, backend.periodicJob(job)] as const);

  return {
    routes,
    start() {
      relay.start();
      auditForwarder.start();
      for (const [, job] of periodic) job.start();
      dispatcher.start();
    },
    startFanout: () => fanout.start(),
    // The fan-out consumer's state is shown (delivery_dependency_up) but never makes delivery unready.
    checks: { consumer: async () => fanout.healthy() },
    stopIntake: { 'fan-out consumer': () => fanout.stop() },
    drain: {
      'delivery loop': () => dispatcher.stop(),
      'outbox relay': () => relay.stop(),
      'audit forwarder': () => auditForwarder.stop(),
      ...Object.fromEntries(periodic.map(([step, job]) => [step, () => job.stop()])),
      recoveries: () => recovery.stop(),
    },
    close: { 'http sender and broker destinations': () => sender.close() },
  };
}
