import { randomBytes, randomUUID } from 'node:crypto';
import { createAdminOperations } from '@cluster/core';
import { createDb } from '@cluster/db';
import { serviceProcess, type ServiceProcess } from '../faults/support.ts';
import { dropDatabase, freshDatabaseUrl, requireEnv } from './cluster.ts';
import type { Json } from './json.ts';
import { buildServices } from './processes.ts';

/**
 * Core, delivery and gateway as three processes, as in production (`node services/<name>/dist/main.js`),
 * on a database and topic prefix of their own, on the servers `npm test` started. For what an in-process
 * cluster cannot show: tracing (the SDK instruments modules as a process loads them) and benchmarks.
 */
export interface ProcessCluster {
  core: ServiceProcess;
  delivery: ServiceProcess;
  gateway: ServiceProcess;
  databaseUrl: string;
  topicPrefix: string;
  /** The gateway's /api/v1. */
  baseUrl: string;
  /** A new organization with an admin user and an organization key, minted as the admin CLI does. */
  newOrg(name: string): Promise<{ key: string; orgId: string }>;
  /** Fetch against /api/v1 with a key: the status, the answer's text and its JSON. */
  api(key: string, method: string, path: string, body?: unknown): Promise<ProcessApiResponse>;
  /** The services' last log lines. */
  tails(): string;
  /** Stops the services and drops the database. */
  stop(): Promise<void>;
}

export interface ProcessApiResponse {
  status: number;
  text: string;
  /** The answer's JSON, as the in-process cluster's ApiResponse gives it. */
  body: Json;
}

/** Fetch against the gateway's /api/v1 (`baseUrl`) with a key. */
async function keyedFetch(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<ProcessApiResponse> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
}

/**
 * Builds the services and starts them. `env` adds settings for all three; `perService` for one of them.
 * `nodeArgs` are given to every process (profiling).
 */
export async function startProcessCluster(
  tag: string,
  opts: {
    env?: Record<string, string>;
    perService?: Partial<Record<'core' | 'delivery' | 'gateway', Record<string, string>>>;
    nodeArgs?: string[];
    /** A broker of the test's own (privateBroker) instead of the suite's. */
    brokers?: string;
    /** A Postgres server of the test's own (privatePostgres: its maintenance database's URL) instead of the suite's. */
    postgresUrl?: string;
  } = {},
): Promise<ProcessCluster> {
  const brokers = opts.brokers ?? requireEnv().brokers.join(',');
  const databaseUrl = freshDatabaseUrl(tag, opts.postgresUrl);
  const topicPrefix = `${tag}${randomBytes(4).toString('hex')}.`;
  const base = {
    // Development keys and loopback receivers (the benches run these clusters outside vitest too).
    CLUSTER_ENV: 'development',
    DATABASE_URL: databaseUrl,
    DATABASE_CREATE: 'true', // its database is new: core makes it (benchmarks run this outside vitest too)
    KAFKA_BROKERS: brokers,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const nodeArgs = opts.nodeArgs ?? [];
  await buildServices();
  const procs: ServiceProcess[] = [];
  const stop = async () => {
    for (const p of [...procs].reverse()) await p.stop();
    await dropDatabase(databaseUrl);
  };
  try {
    const core = await serviceProcess('core', { ...base, ...opts.perService?.core }, { nodeArgs });
    procs.push(core);
    await core.start();
    const coreUrl = `http://127.0.0.1:${core.port}`;
    const delivery = await serviceProcess('delivery', { ...base, CORE_URL: coreUrl, ...opts.perService?.delivery }, { nodeArgs });
    procs.push(delivery);
    await delivery.start();
    const gateway = await serviceProcess(
      'gateway',
      {
        ...base,
        CORE_URL: coreUrl,
        DELIVERY_URL: `http://127.0.0.1:${delivery.port}`,
        EVIDENCE_URL: 'http://127.0.0.1:1',
        GATEWAY_METRICS_PORT: '0',
        ...opts.perService?.gateway,
      },
      { readyPath: '/healthz', nodeArgs },
    );
    procs.push(gateway);
    await gateway.start();
    return {
      core,
      delivery,
      gateway,
      databaseUrl,
      topicPrefix,
      baseUrl: `http://127.0.0.1:${gateway.port}/api/v1`,
      newOrg: (name) => mintOrgKey(databaseUrl, name),
      api: (key, method, path, body) => keyedFetch(`http://127.0.0.1:${gateway.port}/api/v1`, key, method, path, body),
      tails: () => procs.map((p) => `---- ${p.tail()}`).join('\n'),
      stop,
    };
  } catch (err) {
    for (const p of procs) console.error(`---- ${p.tail()}`);
    await stop();
    throw err;
  }
}

/** A new organization with an admin user and an organization key, minted in the database as the admin CLI does. */
export async function mintOrgKey(databaseUrl: string, name: string): Promise<{ key: string; orgId: string }> {
  const db = createDb(databaseUrl, { schema: 'core', poolMax: 1 });
  try {
    const admin = createAdminOperations(db);
    const { id: orgId } = await admin.createOrg(name);
    const { id: userId } = await admin.createUser(orgId, `admin-${randomUUID()}@example.test`, 'Admin', 'admin');
    const { key } = await admin.createKey({ user: userId, scope: 'organization' });
    return { key, orgId };
  } finally {
    await db.destroy();
  }
}
