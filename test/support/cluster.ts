import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { readCoreConfig, startCore } from '@cluster/core';
import { readDeliveryConfig, startDelivery } from '@cluster/delivery';
import { readEvidenceConfig, startEvidence, type EvidenceConfig } from '@cluster/evidence';
import { readGatewayConfig, startGateway } from '@cluster/gateway';
import { createAdminOperations } from '@cluster/core';
import { createDb } from '@cluster/db';
import { eventFromKafkaMessage, type EventEnvelope } from '@cluster/contracts';
import type { Json } from './json.ts';
import { createAnswerCheck } from './answer-schemas.ts';

/**
 * A whole cluster in this test process: its own database and its own Kafka topic
 * prefix on the real servers that `npm test` started, the four services on port 0.
 */
export interface TestCluster {
  baseUrl: string;
  databaseUrl: string;
  brokers: string[];
  topicPrefix: string;
  admin: ReturnType<typeof createAdminOperations>;
  /**
   * Fetch against /api/v1 with a key. Every 2xx answer of an operation is held to the route's
   * declared response (status and schema; test/support/answer-schemas.ts): a mismatch throws.
   */
  api(
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse>;
  /** A fresh organization with an admin user, a project, and an org-scoped admin key. */
  seedOrg(name?: string): Promise<SeededOrg>;
  events: EventLog;
  /** `gatewayMetrics`: the gateway's Prometheus port (its API port does not serve /metrics). */
  ports: { core: number; delivery: number; evidence: number; gateway: number; gatewayMetrics: number };
  flushOutbox(): Promise<number>;
  stop(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: Json;
}

export interface SeededOrg {
  orgId: string;
  adminId: string;
  projectId: string;
  key: string;
  keyId: string;
}

export function requireEnv() {
  const url = process.env.TEST_DATABASE_URL;
  const brokers = process.env.KAFKA_BROKERS;
  if (!url || !brokers)
    throw new Error('run the suite with `npm test` (it starts Postgres and Kafka and sets TEST_DATABASE_URL, KAFKA_BROKERS)');
  return { url, brokers: brokers.split(',') };
}

/** A fresh database on the test server (or the server of `serverUrl`), dropped by the caller when done. */
export function freshDatabaseUrl(tag = 't', serverUrl?: string): string {
  const u = new URL(serverUrl ?? requireEnv().url);
  u.pathname = `/${tag}_${randomBytes(6).toString('hex')}`;
  return u.toString();
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const u = new URL(databaseUrl);
  const name = u.pathname.slice(1);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
  await c.end();
}

export interface ClusterOptions {
  env?: Record<string, string>;
  /** Skip the delivery service (tests that do not need webhooks). */
  withoutDelivery?: boolean;
  /**
   * Each backend connects as its own role (`core`, `delivery`, `evidence`: DATABASE_URLs) to the
   * database of `databaseUrl`, which the caller made and migrated as the owner role (the migration
   * Job's entries): the services only check their schema (MIGRATE_ON_START=false) and create nothing;
   * the admin operations run as the core's role. The database is dropped at stop (through `databaseUrl`).
   */
  roles?: { databaseUrl: string; core: string; delivery: string; evidence: string };
}

export async function startTestCluster(opts: ClusterOptions = {}): Promise<TestCluster> {
  const { brokers } = requireEnv();
  const databaseUrl = opts.roles?.databaseUrl ?? freshDatabaseUrl();
  // Each service's own URL and, with roles, no DDL and no maintenance-database connection at start.
  const database = (service: 'core' | 'delivery' | 'evidence') =>
    opts.roles ? { databaseUrl: opts.roles[service], migrateOnStart: false, createDatabase: false } : { databaseUrl };
  const topicPrefix = `t${randomBytes(4).toString('hex')}.`;
  // Each service's own config (LOG_LEVEL and the rest from the environment), with this cluster's
  // database, broker and topic prefix; the delivery service's WEBHOOK_* settings come from the environment.
  // Development keys and loopback receivers (benches run this cluster outside vitest, which sets it).
  process.env.CLUSTER_ENV ??= 'development';
  process.env.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS ??= 'true';
  // One clock for every service here: a subscription gets exactly the events after its creation,
  // never those of the seeding that ran just before it.
  process.env.WEBHOOK_CLOCK_SKEW_MS ??= '0';
  for (const [k, v] of Object.entries(opts.env ?? {})) process.env[k] = v;

  const core = await startCore({
    ...readCoreConfig(),
    port: 0,
    ...database('core'),
    kafkaBrokers: brokers,
    topicPrefix,
    relayIdleMs: 50,
  });
  const delivery = opts.withoutDelivery
    ? undefined
    : await startDelivery({
        ...readDeliveryConfig(),
        port: 0,
        ...database('delivery'),
        kafkaBrokers: brokers,
        topicPrefix,
        coreUrl: `http://127.0.0.1:${core.port}`,
      });
  const evidence = await startEvidence({
    ...readEvidenceConfig(),
    port: 0,
    ...database('evidence'),
    coreUrl: `http://127.0.0.1:${core.port}`,
  });
  const url = (p: number) => `http://127.0.0.1:${p}`;
  const gateway = await startGateway({
    ...readGatewayConfig(),
    port: 0,
    metricsPort: 0,
    redisUrl: process.env.REDIS_URL_FOR_TESTS,
    rateLimitPerMinute: Number(process.env.RATE_LIMIT_PER_MINUTE ?? 600),
    services: { core: url(core.port), delivery: url(delivery?.port ?? 1), evidence: url(evidence.port) },
  });
  const adminDb = createDb(database('core').databaseUrl, { schema: 'core', poolMax: 3 });
  const admin = createAdminOperations(adminDb);
  const baseUrl = `http://127.0.0.1:${gateway.port}/api/v1`;
  const events = await createEventLog(brokers, `${topicPrefix}cluster.domain-events.v1`);

  const checkAnswer = createAnswerCheck();
  const api: TestCluster['api'] = async (key, method, path, body, headers = {}) => {
    const url = `${baseUrl}${path}`;
    const res = await fetch(url, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    checkAnswer({ method, url, status: res.status, contentType: res.headers.get('content-type'), body: parsed });
    return { status: res.status, headers: res.headers, body: parsed };
  };

  let orgCount = 0;
  const seedOrg = async (name = `Org ${++orgCount}`): Promise<SeededOrg> => {
    const { id: orgId } = await admin.createOrg(name);
    const { id: adminId } = await admin.createUser(
      orgId,
      `admin-${randomBytes(3).toString('hex')}@example.test`,
      'Admin',
      'admin',
    );
    const { id: keyId, key } = await admin.createKey({ user: adminId, scope: 'organization' });
    const created = await api(key, 'POST', '/projects', { name: `${name} project`, description: 'seeded' });
    if (created.status !== 201) throw new Error(`seed project failed: ${JSON.stringify(created.body)}`);
    return { orgId, adminId, projectId: created.body.id, key, keyId };
  };

  return {
    baseUrl,
    databaseUrl,
    brokers,
    topicPrefix,
    admin,
    api,
    seedOrg,
    events,
    ports: {
      core: core.port,
      delivery: delivery?.port ?? 0,
      evidence: evidence.port,
      gateway: gateway.port,
      gatewayMetrics: gateway.metricsPort,
    },
    flushOutbox: core.flushOutbox,
    async stop() {
      await events.stop();
      await gateway.shutdown.run('test');
      await evidence.shutdown.run('test');
      await delivery?.shutdown.run('test');
      await core.shutdown.run('test');
      await adminDb.destroy();
      await dropDatabase(databaseUrl);
    },
  };
}

/**
 * Another evidence service on the cluster's core and database, its settings with `config` over them
 * (a rotated EVIDENCE_SIGNING_KEY, a GitHub App), behind a gateway of its own: that gateway's root
 * URL, and how to stop both.
 */
export async function startEvidenceBeside(
  c: TestCluster,
  config: Partial<EvidenceConfig>,
): Promise<{ root: string; stop(): Promise<void> }> {
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const evidence = await startEvidence({
    ...readEvidenceConfig(),
    port: 0,
    databaseUrl: c.databaseUrl,
    coreUrl: url(c.ports.core),
    ...config,
  });
  const gateway = await startGateway({
    ...readGatewayConfig(),
    port: 0,
    metricsPort: 0,
    services: { core: url(c.ports.core), delivery: url(c.ports.delivery || 1), evidence: url(evidence.port) },
  });
  return {
    root: url(gateway.port),
    async stop() {
      await gateway.shutdown.run('test');
      await evidence.shutdown.run('test');
    },
  };
}

/** Every message of a topic since the start, read by a real Kafka consumer. */
export interface EventLog {
  all(): EventEnvelope[];
  /** Waits until `predicate` matches at least `count` events (default 1); returns the matches. */
  waitFor(predicate: (e: EventEnvelope) => boolean, count?: number, timeoutMs?: number): Promise<EventEnvelope[]>;
  /** Waits for a quiet period, then returns the matches (for "exactly one" assertions). */
  settle(predicate: (e: EventEnvelope) => boolean, quietMs?: number): Promise<EventEnvelope[]>;
  stop(): Promise<void>;
}

export async function createEventLog(brokers: string[], topic: string): Promise<EventLog> {
  const kafka = new Kafka({
    brokers,
    clientId: 'test-event-log',
    logLevel: process.env.DEBUG_KAFKA ? logLevel.INFO : logLevel.NOTHING,
  });
  const consumer: Consumer = kafka.consumer({ groupId: `test-log-${randomBytes(6).toString('hex')}` });
  const seen: EventEnvelope[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      // Domain events are CloudEvents (binary mode); this reads them, like the fan-out, as envelopes.
      if (message.value) seen.push(eventFromKafkaMessage(message.headers, message.value));
    },
  });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  return {
    all: () => [...seen],
    async waitFor(predicate, count = 1, timeoutMs = 20000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matches = seen.filter(predicate);
        if (matches.length >= count) return matches;
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${count} event(s); have ${matches.length} (of ${seen.length} total)`);
        await sleep(50);
      }
    },
    async settle(predicate, quietMs = 1500) {
      let last = -1;
      for (;;) {
        const n = seen.length;
        if (n === last) return seen.filter(predicate);
        last = n;
        await sleep(quietMs);
      }
    },
    async stop() {
      await consumer.disconnect();
    },
  };
}
