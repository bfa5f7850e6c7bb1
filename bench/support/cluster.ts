import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { createAdminOperations } from '@cluster/core';
import { createDb } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl, requireEnv } from '../../test/support/cluster.ts';
import type { Json } from '../../test/support/json.ts';
import { serviceProcess, type ServiceProcess } from '../../test/faults/support.ts';
import { buildServices } from '../../test/support/processes.ts';
import { clusterGroups, cpuMeter, type ProcessGroups } from './cpu.ts';

export interface ApiAnswer {
  status: number;
  /** The JSON answer of whichever route was called. */
  body: Json;
}

export interface BenchOrg {
  key: string;
  orgId: string;
  projectIds: string[];
}

/** Core, delivery and gateway as three processes, as in production, on a database of their own. */
export interface BenchCluster {
  core: ServiceProcess;
  delivery: ServiceProcess;
  gateway: ServiceProcess;
  databaseUrl: string;
  /** One call of the public API. */
  call(key: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer>;
  /** A new organization with an admin key (minted as the admin CLI does) and `projects` projects made through the API. */
  newOrg(name: string, projects: number): Promise<BenchOrg>;
  /** CPU accounting of the three services, Postgres, Kafka, this process and any `extra` groups. */
  meter(extra?: ProcessGroups): ReturnType<typeof cpuMeter>;
  /** The services' last log lines (printed when a run fails). */
  tails(): string;
  /** Stops the services and drops the database. */
  stop(): Promise<void>;
}

/**
 * Builds and starts the cluster for a benchmark (the services run their dist, as in
 * production). `env` adds service settings. BENCH_PROFILE=dir
 * writes a CPU profile of each service there; BENCH_NODE_ARGS adds node flags.
 */
export async function startBenchCluster(tag: string, env: Record<string, string> = {}): Promise<BenchCluster> {
  const { brokers } = requireEnv();
  const databaseUrl = freshDatabaseUrl(tag);
  const base = {
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_TOPIC_PREFIX: `b${randomBytes(4).toString('hex')}.`,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '10000000',
    OUTBOX_RELAY_IDLE_MS: '1000',
    ...env,
  };
  const nodeArgs = [
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  buildServices();
  const procs: ServiceProcess[] = [];
  const stop = async () => {
    for (const p of [...procs].reverse()) await p.stop();
    await dropDatabase(databaseUrl);
  };
  try {
    const core = await serviceProcess('core', base, { nodeArgs });
    procs.push(core);
    await core.start();
    const delivery = await serviceProcess('delivery', { ...base, CORE_URL: `http://127.0.0.1:${core.port}` }, { nodeArgs });
    procs.push(delivery);
    await delivery.start();
    const gateway = await serviceProcess(
      'gateway',
      {
        ...base,
        CORE_URL: `http://127.0.0.1:${core.port}`,
        DELIVERY_URL: `http://127.0.0.1:${delivery.port}`,
        EVIDENCE_URL: 'http://127.0.0.1:1',
        GATEWAY_METRICS_PORT: '0',
      },
      { readyPath: '/healthz', nodeArgs },
    );
    procs.push(gateway);
    await gateway.start();

    const api = new Agent({ connections: 64 });
    const call = async (key: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer> => {
      const res = await request(`http://127.0.0.1:${gateway.port}/api/v1${path}`, {
        method,
        dispatcher: api,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
    };
    const newOrg = async (name: string, projects: number): Promise<BenchOrg> => {
      const db = createDb(databaseUrl, { schema: 'core', poolMax: 1 });
      try {
        const admin = createAdminOperations(db);
        const { id: orgId } = await admin.createOrg(name);
        const { id: userId } = await admin.createUser(orgId, `bench-${randomUUID()}@example.test`, 'Bench', 'admin');
        const { key } = await admin.createKey({ user: userId, scope: 'organization' });
        const projectIds: string[] = [];
        for (let i = 0; i < projects; i++) {
          const res = await call(key, 'POST', '/projects', { name: `${name} project ${i}`, description: 'benchmark' });
          if (res.status !== 201) throw new Error(`project failed: ${JSON.stringify(res.body)}`);
          projectIds.push(res.body.id as string);
        }
        return { key, orgId, projectIds };
      } finally {
        await db.destroy();
      }
    };
    return {
      core,
      delivery,
      gateway,
      databaseUrl,
      call,
      newOrg,
      meter: (extra = []) =>
        cpuMeter([
          ...clusterGroups(
            [
              { name: 'gateway', pid: () => gateway.pid },
              { name: 'core', pid: () => core.pid },
              { name: 'delivery', pid: () => delivery.pid },
            ],
            new URL(databaseUrl).pathname.slice(1),
          ),
          ...extra,
        ]),
      tails: () => procs.map((p) => `---- ${p.tail()}`).join('\n'),
      async stop() {
        await api.close();
        await stop();
      },
    };
  } catch (err) {
    for (const p of procs) console.error(`---- ${p.tail()}`);
    await stop();
    throw err;
  }
}

/** The body of the benchmarks' write, an integrator filing a bug (the `i`th one). */
export function bugReport(i: number) {
  return {
    type: 'bug_report',
    title: `Checkout button does nothing #${i}`,
    description: 'Clicking "Pay" on the checkout page shows a spinner forever.',
    priority: 'high',
  };
}

/** `count` entry creates (`POST /projects/:id/entries`, round-robin over the projects) by `clients` concurrent clients. */
export function entryWriter(cluster: BenchCluster, org: BenchOrg) {
  let n = 0;
  const write = () => {
    const i = ++n;
    return cluster.call(org.key, 'POST', `/projects/${org.projectIds[i % org.projectIds.length]}/entries`, bugReport(i));
  };
  return {
    /** One write; resolves with the API's answer. */
    write,
    /** `count` writes by `clients` concurrent clients; throws on any answer but 201. */
    async run(count: number, clients: number): Promise<void> {
      let next = 0;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (next < count) {
            next++;
            const res = await write();
            if (res.status !== 201) throw new Error(`write failed: ${res.status} ${JSON.stringify(res.body)}`);
          }
        }),
      );
    },
  };
}
