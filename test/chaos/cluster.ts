import pg from 'pg';
import { portOpen } from '../../scripts/lib/infra.mjs';
import { privateBroker, privatePostgres, serviceProcess, type ServiceProcess } from '../faults/support.ts';
import { manifestProbe, startBalancer, type Balancer } from '../support/balancer.ts';
import { buildServices, waitUntil } from '../support/processes.ts';

/** How a member can be struck: SIGSTOP for a while; SIGKILL and start again; a fast stop and start (Postgres). */
export type FaultKind = 'freeze' | 'kill' | 'stop';

/** One process of the soak's cluster that the fault scheduler may strike. */
export interface Member {
  name: string;
  kinds: readonly FaultKind[];
  freeze(): void;
  thaw(): void;
  /** SIGKILL (or, `stop`, a fast shutdown): resolves once the process is gone. */
  kill(how: 'kill' | 'stop'): Promise<void>;
  /** Starts it again on the same port (and data); resolves once it answers. */
  start(): Promise<void>;
  /** Resolves once it answers again after a thaw (bounded). */
  back(timeoutMs: number): Promise<void>;
  /** Its last log lines, when it has any. */
  tail(): string;
}

/** Everything a soak runs: private Postgres and Kafka, the services as processes, and balancers in front of the replicas. */
export interface ChaosCluster {
  members: Member[];
  /** The public API, /api/v1, through the gateways' balancer. */
  baseUrl: string;
  databaseUrl: string;
  /** Names of the gateways in the balancer's rotation now. */
  gatewaysReady(): string[];
  tails(): string;
  /** Stops everything it started (thawing what is frozen) and removes its data; never throws. */
  stop(): Promise<void>;
}

/**
 * Settings of every service in the soak: webhooks to the local receiver, short retries, leases and
 * polls (as test/faults/webhook-faults.test.ts), so that recovery shows within a run; no rate limit
 * (the load is the soak's, not an abuser's).
 */
const SERVICE_ENV = {
  // Development keys and a loopback receiver: a soak on this machine, also when run outside vitest (npm run chaos).
  CLUSTER_ENV: 'development',
  LOG_LEVEL: 'warn',
  KAFKA_TOPIC_PREFIX: 'chaos.',
  RATE_LIMIT_PER_MINUTE: '10000000',
  OUTBOX_RELAY_IDLE_MS: '100',
  WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_RETRY_MAX_STEP_MS: '5000',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LEASE_MS: '3000',
  WEBHOOK_POLL_MS: '250',
  KAFKA_SESSION_TIMEOUT_MS: '6000',
};

const START_MS = 120_000;

/** Thrown by an interrupted soak (Ctrl-C): no report. */
export class SoakInterrupted extends Error {
  constructor() {
    super('the soak was interrupted; no report');
  }
}

/**
 * Starts a private PostgreSQL and Kafka, two cores, two deliveries, evidence and `gateways`
 * gateways as processes (their dist, as production runs), with a layer-4 balancer in front of each
 * set of replicas that follows the Deployments' readiness probes (k8s/base), as a Kubernetes Service
 * and the ingress do. On failure, stops what it started and throws.
 */
export async function startChaosCluster(opts: {
  gateways: number;
  /** Aborted: stops starting members, stops those started, and throws. */
  signal?: AbortSignal;
  log: (line: string) => void;
}): Promise<ChaosCluster> {
  const cleanups: (() => Promise<void>)[] = [];
  const members: Member[] = [];
  const stop = async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => {});
  };
  try {
    await buildServices();
    const [postgres, broker] = await Promise.all([privatePostgres(), privateBroker()]);
    cleanups.push(
      async () => postgres.remove(),
      async () => broker.remove(),
    );
    cleanups.push(
      () => postgres.stop(),
      () => broker.stop(),
    );
    opts.log('starting a private PostgreSQL and Kafka');
    await Promise.all([postgres.start(), broker.start()]);
    members.push(postgresMember(postgres), brokerMember(broker));
    const databaseUrl = await createDatabase(postgres.url, 'chaos');
    const env = { ...SERVICE_ENV, DATABASE_URL: databaseUrl, KAFKA_BROKERS: broker.brokers };

    const balance = async (service: Parameters<typeof manifestProbe>[0], procs: ServiceProcess[], names: string[]) => {
      const lb = await startBalancer(
        procs.map((p, i) => ({ name: names[i], port: p.port })),
        manifestProbe(service),
      );
      cleanups.push(() => lb.close());
      await lb.waitForAll(START_MS);
      return lb;
    };
    const replicas = async (
      service: 'core' | 'delivery' | 'evidence' | 'gateway',
      count: number,
      extra: Record<string, string>,
    ) => {
      const names = Array.from({ length: count }, (_, i) => (count === 1 ? service : `${service}-${i + 1}`));
      const procs: ServiceProcess[] = [];
      // One at a time: the first migrates its schema (under a lock) and creates the topics.
      for (const name of names) {
        if (opts.signal?.aborted) throw new SoakInterrupted();
        opts.log(`starting ${name}`);
        const proc = await serviceProcess(service, { ...env, ...extra });
        cleanups.push(() => proc.stop());
        await proc.start();
        procs.push(proc);
        members.push(serviceMember(name, proc));
      }
      return balance(service, procs, names);
    };

    const core = await replicas('core', 2, {});
    const delivery = await replicas('delivery', 2, { CORE_URL: core.url });
    const evidence = await replicas('evidence', 1, { CORE_URL: core.url });
    const gateway: Balancer = await replicas('gateway', opts.gateways, {
      CORE_URL: core.url,
      DELIVERY_URL: delivery.url,
      EVIDENCE_URL: evidence.url,
      GATEWAY_METRICS_PORT: '0',
    });
    return {
      members,
      baseUrl: `${gateway.url}/api/v1`,
      databaseUrl,
      gatewaysReady: () => gateway.ready(),
      tails: () =>
        members
          .map((m) => [m.name, m.tail()] as const)
          .filter(([, t]) => t)
          .map(([name, t]) => `---- ${name}\n${t}`)
          .join('\n'),
      stop,
    };
  } catch (err) {
    if (!(err instanceof SoakInterrupted)) for (const m of members) if (m.tail()) opts.log(`---- ${m.name}\n${m.tail()}`);
    await stop();
    throw err;
  }
}

/** Creates `name` on the server at `maintenanceUrl` and returns its URL. */
async function createDatabase(maintenanceUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(maintenanceUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** True when `url` answers 2xx within a second. */
const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(1000) })
    .then((res) => res.ok)
    .catch(() => false);

function serviceMember(name: string, proc: ServiceProcess): Member {
  return {
    name,
    kinds: ['freeze', 'kill'],
    freeze: () => proc.freeze(),
    thaw: () => proc.thaw(),
    kill: () => proc.kill9(),
    start: () => proc.start(),
    back: (timeoutMs) => waitUntil(`${name} /readyz`, () => answers(`http://127.0.0.1:${proc.port}/readyz`), timeoutMs),
    tail: () => proc.tail(),
  };
}

function brokerMember(broker: Awaited<ReturnType<typeof privateBroker>>): Member {
  const port = Number(broker.brokers.split(':')[1]);
  return {
    name: 'kafka',
    kinds: ['freeze', 'kill'],
    freeze: () => broker.freeze(),
    thaw: () => broker.thaw(),
    kill: () => broker.kill9(),
    start: () => broker.start(),
    back: (timeoutMs) => waitUntil('kafka port', () => portOpen(port), timeoutMs),
    tail: () => '',
  };
}

function postgresMember(postgres: Awaited<ReturnType<typeof privatePostgres>>): Member {
  const connects = async () => {
    const client = new pg.Client({ connectionString: postgres.url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } finally {
      await client.end().catch(() => {});
    }
  };
  return {
    name: 'postgres',
    kinds: ['freeze', 'kill', 'stop'],
    freeze: () => postgres.freeze(),
    thaw: () => postgres.thaw(),
    kill: (how) => (how === 'stop' ? postgres.stop() : postgres.kill9()),
    start: () => postgres.start(),
    back: (timeoutMs) => waitUntil('postgres', connects, timeoutMs),
    tail: () => '',
  };
}
