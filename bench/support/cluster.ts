import { Agent, request } from 'undici';
import type { Json } from '../../test/support/json.ts';
import { requiredField } from './fields.ts';
import type { ServiceProcess } from '../../test/faults/support.ts';
import { startProcessCluster } from '../../test/support/process-cluster.ts';
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
  const nodeArgs = [
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  const cluster = await startProcessCluster(tag, {
    env: { RATE_LIMIT_PER_MINUTE: '10000000', OUTBOX_RELAY_IDLE_MS: '1000', ...env },
    nodeArgs,
  });
  const { core, delivery, gateway, databaseUrl } = cluster;
  const api = new Agent({ connections: 64 });
  const call = async (key: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer> => {
    const res = await request(`${cluster.baseUrl}${path}`, {
      method,
      dispatcher: api,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined };
  };
  const newOrg = async (name: string, projects: number): Promise<BenchOrg> => {
    const { key, orgId } = await cluster.newOrg(name);
    const projectIds: string[] = [];
    for (let i = 0; i < projects; i++) {
      const res = await call(key, 'POST', '/projects', { name: `${name} project ${i}`, description: 'benchmark' });
      if (res.status !== 201) throw new Error(`project failed: ${JSON.stringify(res.body)}`);
      projectIds.push(requiredField(res.body, 'id'));
    }
    return { key, orgId, projectIds };
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
    tails: cluster.tails,
    async stop() {
      await api.close();
      await cluster.stop();
    },
  };
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
