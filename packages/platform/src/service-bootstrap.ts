// The composition root every backend (core, delivery, evidence) shares: logger, metrics and
// shutdown; the Postgres pool after its migrations; Kafka and its start-up steps; readiness,
// the Connect server and the shutdown phases. A service's start.ts builds only what is its own
// between `openDatabase`/`connectKafka` and `serve`. Exported as `@cluster/platform/service`,
// apart from the package's index, so that the gateway's bundle does not take in knex and kafkajs.
import {
  ambientDb,
  createDb,
  ensureDatabase,
  idempotencyKeys,
  pingPool,
  poolState,
  prepareSchema,
  type DbPoolObserver,
  type DbTimeouts,
  type Knex,
  type Migration,
} from '@cluster/db';
import { Gauge, Histogram } from 'prom-client';
import { createKafka, ensureClusterTopics, kafkaStartProblem, pingKafka, type Admin } from '@cluster/kafka';
import type { ConnectRouter } from '@connectrpc/connect';
import { ConfigError, type DatabaseConfig, type KafkaConfig, type ProcessConfig, type ServiceConfig } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { idempotentCalls } from './idempotent-calls.ts';
import { createPeriodicJob, type PeriodicJob, type PeriodicJobDefinition } from './periodic-job.ts';
import { createReadiness } from './readiness.ts';
import type { SecretBox } from './secret-box.ts';
import { createServiceServer } from './server.ts';
import { createTokenVerifier, servedRpcs, type CallerTrust, type InternalRpcs } from './service-auth.ts';
import { createShutdown, type Shutdown } from './shutdown.ts';
import { startStep, type StartStep } from './start-step.ts';
import { shutdownTelemetry } from './telemetry.ts';

/** The settings every backend reads (readProcessConfig, readServiceConfig, readDatabaseConfig, its port, readDbTimeouts). */
export type BackendConfig = ProcessConfig & ServiceConfig & DatabaseConfig & { port: number; db: DbTimeouts };

export type Kafka = ReturnType<typeof createKafka>;

/** Shutdown steps of one phase, run in the order of their keys (the key names the step in the logs). */
export type ShutdownSteps = Record<string, () => void | Promise<void>>;

/** What a backend adds to the server the bootstrap runs. */
export interface ServeOptions {
  routes: (router: ConnectRouter) => void;
  /**
   * Who may call. Default: the gateway alone, for the RPCs of the operation table and `internal`, its
   * tokens verified with the service's keys.
   */
  trust?: CallerTrust;
  /** With the default trust: the service's internal RPCs, each with its policy (servedRpcs). */
  internal?: InternalRpcs;
  /**
   * Seals the answers stored for Idempotency-Keys at rest (delivery: its answers carry webhook secrets shown
   * once). Without it they are stored as answered: copies of rows the schema holds in clear.
   */
  sealAnswers?: SecretBox;
  /** Readiness checks besides postgres and kafka: shown (`<service>_dependency_up`), never required. */
  checks?: Record<string, () => Promise<boolean>>;
  /** The service's own steps of each shutdown phase (after the start-up retries stop, before the RPC server closes; ...). */
  stopIntake?: ShutdownSteps;
  drain?: ShutdownSteps;
  close?: ShutdownSteps;
}

export interface Backend {
  logger: Logger;
  metrics: Metrics;
  shutdown: Shutdown;
  /**
   * Migrates the service's schema (or checks it, MIGRATE_ON_START=false), creating the database first when
   * DATABASE_CREATE says so, and opens the serving pool, bounded by DB_* timeouts. Readiness requires it.
   * Answers the pool as the stores take it (ambientDb): a query made while the server runs a call under an
   * Idempotency-Key joins that call's transaction (idempotent-calls.ts), any other runs on the pool.
   */
  openDatabase(migrations: Migration[], opts?: { poolMax?: number }): Promise<Knex>;
  /**
   * The Kafka client, and the creation (or check, KAFKA_MANAGE_TOPICS=false) of the cluster's topics as a
   * start-up step: Kafka is not needed to serve, so a broker that is down at start delays the topics, not
   * the service. Readiness shows it, never requires it.
   */
  connectKafka(config: KafkaConfig): Promise<{ kafka: Kafka; admin: Admin; topics: StartStep }>;
  /**
   * A start-up step on Kafka (startStep): awaited up to KAFKA_START_WAIT_MS, then retried in the
   * background; a failure waiting cannot mend (a refused login, a certificate that does not verify,
   * topics it may not create) fails the start, or stops the process if it shows only later.
   * Its retries stop first at shutdown.
   */
  kafkaStep(what: string, step: () => Promise<void>): Promise<StartStep>;
  /** A periodic job (createPeriodicJob) on the service's logger and metrics; the caller starts it and stops it in `drain`. */
  periodicJob(job: PeriodicJobDefinition): PeriodicJob;
  /**
   * Serves: readiness, the Connect server on the configured port (logs `<service> listening`), and the
   * shutdown phases: not_ready (readiness) -> stop_intake (start-up retries, the service's own, the RPC
   * server) -> drain (the service's own) -> close (the service's own, readiness checks, kafka admin,
   * postgres pool, telemetry). Resolves the port.
   */
  serve(opts: ServeOptions): Promise<number>;
}

/** How often a backend sweeps its expired Idempotency-Key records. */
const KEY_SWEEP_MS = 10 * 60 * 1000;

/** Starts a backend's shared parts; `config.databaseUrl` is required. */
export function createBackend(service: 'core' | 'delivery' | 'evidence', config: BackendConfig): Backend {
  if (!config.databaseUrl) throw new ConfigError('DATABASE_URL is required');
  const databaseUrl = config.databaseUrl;
  const logger = createLogger(service, config.logLevel);
  const metrics = createMetrics(service);
  const shutdown = createShutdown(logger, config.shutdownDeadlineMs);
  let db: Knex | undefined;
  let kafka: { admin: Admin; waitMs: number } | undefined;
  const startSteps: StartStep[] = [];

  const kafkaStep: Backend['kafkaStep'] = async (what, step) => {
    if (!kafka) throw new Error('kafkaStep: connectKafka first');
    const started = await startStep(what, step, { logger, waitMs: kafka.waitMs, fatal: kafkaStartProblem });
    started.done.catch((err: unknown) => shutdown.fail(err));
    startSteps.push(started);
    return started;
  };

  return {
    logger,
    metrics,
    shutdown,
    async openDatabase(migrations, opts = {}) {
      if (config.createDatabase) await ensureDatabase(databaseUrl);
      const excess = await prepareSchema(databaseUrl, service, migrations, config.migrateOnStart, {
        lockTimeoutMs: config.migrationLockTimeoutMs,
        onRetry: (err, attempt, delayMs) =>
          logger.warn({ err, attempt, delayMs }, 'migration waited too long for a lock; retrying'),
      });
      // Migrated by the Job, the service should run as a role of its own with the DML on its schema alone.
      if (excess.length && !config.development)
        logger.warn(
          { privileges: excess },
          'connected to Postgres as a role that may change the schema: give the service a role of its own (docs/security.md, "Database roles")',
        );
      const observer = poolMetrics(metrics, () => db);
      db = createDb(databaseUrl, {
        schema: service,
        application: service,
        poolMax: opts.poolMax,
        logger,
        timeouts: config.db,
        observer,
      });
      return ambientDb(db);
    },
    async connectKafka(kc) {
      const client = createKafka({
        brokers: kc.kafkaBrokers,
        clientId: service,
        logger,
        logLevel: kc.kafkaClientLogLevel,
        security: kc.kafkaSecurity,
      });
      kafka = { admin: client.admin(), waitMs: kc.kafkaStartWaitMs };
      const topics = await kafkaStep(kc.manageTopics ? 'creating Kafka topics' : 'checking Kafka topics', () =>
        ensureClusterTopics(client, kc.topicPrefix, { manage: kc.manageTopics }),
      );
      return { kafka: client, admin: kafka.admin, topics };
    },
    kafkaStep,
    periodicJob: (job) => createPeriodicJob(job, { logger, metrics }),
    async serve(opts) {
      if (!db) throw new Error('serve: openDatabase first');
      const pool = db;
      const admin = kafka?.admin;
      // Ready with Postgres: the other dependencies' states are shown but never make the service unready.
      // Postgres is checked through the serving pool, and a pool whose server answered within the acquire
      // timeout is ready without a probe query (pingPool): a load peak that queues every connection must
      // not make every replica unready at once (issue 38), a frozen server still does within seconds.
      const readiness = createReadiness({
        checks: {
          postgres: () => pingPool(pool, config.db.acquireTimeoutMs),
          ...(admin && { kafka: () => pingKafka(admin) }),
          ...opts.checks,
        },
        required: ['postgres'],
        metrics,
      });
      // Idempotency-Key records of the service's schema, swept once they expire (24 hours).
      const keys = idempotencyKeys(service);
      const keySweep = createPeriodicJob(
        {
          name: 'idempotency_sweep',
          what: 'sweep of expired Idempotency-Key records',
          intervalMs: KEY_SWEEP_MS,
          run: () => keys.sweep(pool),
        },
        { logger, metrics },
      );
      keySweep.start();
      const server = createServiceServer({
        service,
        routes: opts.routes,
        interceptors: [idempotentCalls({ pool, keys, statementTimeoutMs: config.db.statementTimeoutMs, seal: opts.sealAnswers })],
        // By default the gateway calls, for a key whose actor its token carries (and that it authenticated for this very request).
        trust: opts.trust ?? {
          verify: createTokenVerifier(config.serviceKeys),
          policyOf: servedRpcs(service, opts.internal),
        },
        logger,
        metrics,
        ready: readiness.probe,
      });
      const port = await server.listen(config.port, config.listenHost);
      logger.info({ port }, `${service} listening`);

      const add = (phase: Parameters<Shutdown['add']>[0], steps: ShutdownSteps = {}) => {
        for (const [name, run] of Object.entries(steps)) shutdown.add(phase, name, run);
      };
      shutdown.add('not_ready', 'readiness', () => server.drain());
      if (startSteps.length) shutdown.add('stop_intake', 'start-up retries', () => startSteps.forEach((s) => s.stop()));
      add('stop_intake', opts.stopIntake);
      shutdown.add('stop_intake', 'rpc server', () => server.close());
      add('drain', opts.drain);
      shutdown.add('drain', 'idempotency sweep', () => keySweep.stop());
      add('close', opts.close);
      shutdown.add('close', 'readiness checks', () => readiness.stop());
      if (admin) shutdown.add('close', 'kafka admin', () => admin.disconnect());
      shutdown.add('close', 'postgres pool', () => pool.destroy());
      shutdown.add('close', 'telemetry', () => shutdownTelemetry());
      return port;
    },
  };
}

/**
 * The serving pool's metrics: how long each acquire waited (`<service>_db_pool_acquire_seconds`, by
 * result: a `timeout` answered 503) and its connections now (`<service>_db_pool_connections` by state:
 * used, free, pending acquires, max), read from the pool at each scrape without a query. The sizing of
 * `DB_POOL_MAX` reads them (bench/README.md, "Production-shape pools").
 */
function poolMetrics(metrics: Metrics, pool: () => Knex | undefined): DbPoolObserver {
  const waits = new Histogram({
    name: `${metrics.prefix}db_pool_acquire_seconds`,
    help: 'Time a query waited for a connection of the serving pool, by result (ok, timeout: answered 503).',
    labelNames: ['result'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metrics.registry],
  });
  new Gauge({
    name: `${metrics.prefix}db_pool_connections`,
    help: 'Connections of the serving pool by state: used, free, pending (acquires waiting), max (DB_POOL_MAX).',
    labelNames: ['state'] as const,
    registers: [metrics.registry],
    collect() {
      const db = pool();
      const state = db && poolState(db);
      if (!state) return;
      for (const [name, value] of Object.entries(state)) this.set({ state: name }, value);
    },
  });
  return { acquired: (seconds, ok) => waits.observe({ result: ok ? 'ok' : 'timeout' }, seconds) };
}
