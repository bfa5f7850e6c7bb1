import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createAdminOperations } from '@cluster/core';
import { claimsOf } from '@cluster/platform';
import { AuthService, WebhookService } from '@cluster/proto';
import { createDb, type Knex } from '@cluster/db';
import { commitWrite } from '@cluster/outbox';
import { portOpen, prepareKafka, preparePostgres, stopPid } from '../../scripts/lib/infra.mjs';
import { freePort, runningPid, spawnService, waitUntil } from '../support/processes.ts';
import type { Receiver } from '../support/receiver.ts';
import { jsonOf, transportAs } from '../support/service-calls.ts';

// Fault tests: services as real child processes that can be killed with SIGKILL, and a broker of their own.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A service (core or delivery) running as `node services/<name>/dist/main.js`, as in production. */
export interface ServiceProcess {
  port: number;
  /** The running child's process id (for CPU accounting in benchmarks). */
  readonly pid: number | undefined;
  start(): Promise<void>;
  /** SIGKILL: no shutdown phase runs. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
  /** SIGSTOP: the process hangs, its sockets stay open (a frozen dependency). */
  freeze(): void;
  /** SIGCONT after freeze. */
  thaw(): void;
  /** Last lines of its output (printed when a test fails). */
  tail(): string;
  /** Everything it printed, stdout and stderr interleaved, up to its last 100 000 chunks (a test that reads its logs). */
  output(): string;
}

/**
 * Sends `sig` to a running child (SIGSTOP/SIGCONT to freeze and thaw it), and with `children` to
 * the processes it forked too (Postgres: every backend and worker, each in a session of its own).
 */
export function signal(child: ChildProcess | undefined, sig: 'SIGSTOP' | 'SIGCONT', { children = false } = {}): void {
  const pid = runningPid(child);
  if (pid === undefined) throw new Error(`cannot send ${sig}: the process is not running`);
  // The parent first: a frozen server forks no new child in between.
  for (const target of [pid, ...(children ? childPids(pid) : [])]) {
    try {
      process.kill(target, sig);
    } catch {
      // a child that exited meanwhile
    }
  }
}

/**
 * SIGKILL to `child` (and with `children`, to the processes it forked) should this process exit
 * while it runs; the hook goes when the child exits, so that a soak's many restarts do not pile
 * hooks up. SIGKILL ends a frozen process too.
 */
function killOnExit(child: ChildProcess, { children = false } = {}): void {
  const kill = () => {
    const pid = runningPid(child);
    if (pid === undefined) return;
    for (const target of [...(children ? childPids(pid) : []), pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone
      }
    }
  };
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
}

/** The processes whose parent is `pid` (from /proc). */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

const PORT_VARIABLE = {
  core: 'CORE_PORT',
  delivery: 'DELIVERY_PORT',
  gateway: 'GATEWAY_PORT',
  evidence: 'EVIDENCE_PORT',
} as const;

export async function serviceProcess(
  name: keyof typeof PORT_VARIABLE,
  env: Record<string, string>,
  opts: { port?: number; readyPath?: string; nodeArgs?: string[] } = {},
): Promise<ServiceProcess> {
  const port = opts.port ?? (await freePort());
  const lines: string[] = [];
  const all: string[] = [];
  let child: ChildProcess | undefined;
  return {
    port,
    get pid() {
      return child?.pid;
    },
    async start() {
      child = spawnService(
        name,
        { ...env, [PORT_VARIABLE[name]]: String(port) },
        { nodeArgs: opts.nodeArgs, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.on('data', (d: Buffer) => {
          lines.push(...d.toString().split('\n').filter(Boolean));
          if (lines.length > 200) lines.splice(0, lines.length - 200);
          all.push(d.toString()); // whole chunks: a line split across two stays whole when joined
          if (all.length > 100_000) all.splice(0, all.length - 100_000);
        });
      }
      // Never leave a child behind: not when start-up fails, not when this process exits.
      const started = child;
      killOnExit(started);
      const probe = opts.readyPath ?? '/readyz';
      try {
        await waitUntil(`${name} ${probe}`, async () => (await fetch(`http://127.0.0.1:${port}${probe}`)).ok, 90_000);
      } catch (err) {
        started.kill('SIGKILL');
        throw new Error(`${(err as Error).message}\n${lines.slice(-20).join('\n')}`, { cause: err });
      }
    },
    kill9: () => stopPid(runningPid(child), { signal: 'SIGKILL', graceMs: 0 }),
    stop: async () => {
      if (runningPid(child)) process.kill(child!.pid!, 'SIGCONT'); // a frozen process cannot hear SIGTERM
      await stopPid(runningPid(child), { graceMs: 25_000 });
    },
    freeze: () => signal(child, 'SIGSTOP'),
    thaw: () => signal(child, 'SIGCONT'),
    tail: () => lines.slice(-40).join('\n'),
    output: () => all.join(''),
  };
}

/** A single-node KRaft broker of the test's own (never the shared one), stoppable and restartable on the same ports and data. */
export interface PrivateBroker {
  /** Its PLAINTEXT listener. */
  brokers: string;
  /** Its SASL_SSL listener, when made with `saslSsl`. */
  saslSslBrokers?: string;
  start(): Promise<void>;
  kill9(): Promise<void>;
  stop(): Promise<void>;
  freeze(): void;
  thaw(): void;
  remove(): void;
}

/**
 * `saslSsl`: a SASL_SSL listener too (prepareKafka), with a server certificate (test/support/certificates.ts)
 * and SCRAM-SHA-512 users.
 */
export async function privateBroker(
  opts: { saslSsl?: { keystoreFile: string; keystorePassword: string; scramUsers: { name: string; password: string }[] } } = {},
): Promise<PrivateBroker> {
  const port = await freePort();
  const controller = await freePort();
  const saslSslPort = opts.saslSsl ? await freePort() : undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fault-kafka-'));
  const kafka = prepareKafka({
    configDir: dir,
    dataDir: path.join(dir, 'data'),
    port,
    controllerPort: controller,
    logLevel: 'WARN',
    saslSsl: opts.saslSsl && saslSslPort ? { port: saslSslPort, ...opts.saslSsl } : undefined,
  });
  let child: ChildProcess | undefined;
  return {
    brokers: `127.0.0.1:${port}`,
    saslSslBrokers: saslSslPort ? `127.0.0.1:${saslSslPort}` : undefined,
    async start() {
      child = spawn('java', kafka.javaArgs(dir), { stdio: 'ignore' });
      killOnExit(child);
      await waitUntil('private Kafka', () => portOpen(port), 90_000);
    },
    kill9: () => stopPid(runningPid(child), { signal: 'SIGKILL', graceMs: 0 }),
    stop: async () => {
      if (runningPid(child)) process.kill(child!.pid!, 'SIGCONT');
      await stopPid(runningPid(child), { graceMs: 20_000 });
    },
    freeze: () => signal(child, 'SIGSTOP'),
    thaw: () => signal(child, 'SIGCONT'),
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A PostgreSQL server of the test's own (never the shared one), on a free port and a data directory
 * of its own, that a test can freeze (SIGSTOP to the server and every backend), kill -9 and restart
 * on the same port and data. `url` is its maintenance database.
 */
export interface PrivatePostgres {
  url: string;
  port: number;
  start(): Promise<void>;
  kill9(): Promise<void>;
  /** A fast shutdown (SIGINT): open connections are cut. */
  stop(): Promise<void>;
  freeze(): void;
  thaw(): void;
  remove(): void;
}

/** `ssl`: the server takes TLS connections too, with that certificate and key (PEM files). */
export async function privatePostgres(opts: { ssl?: { certFile: string; keyFile: string } } = {}): Promise<PrivatePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fault-pg-'));
  chmodSync(dir, 0o755); // the server runs as the postgres user when we are root
  const server = await preparePostgres({
    dir: path.join(dir, 'data'),
    port,
    logFile: path.join(dir, 'postgres.log'),
    ssl: opts.ssl,
  });
  let child: ChildProcess | undefined;
  const all = { children: true };
  return {
    url: server.url,
    port,
    async start() {
      child = await server.start();
      // Its backends too: one left frozen or running would hold the data directory.
      killOnExit(child, { children: true });
    },
    async kill9() {
      // The server and its backends: a crash leaves no process behind to finish a query.
      const pid = runningPid(child);
      const backends = pid ? childPids(pid) : [];
      await stopPid(pid, { signal: 'SIGKILL', graceMs: 0 });
      for (const b of backends) await stopPid(b, { signal: 'SIGKILL', graceMs: 0 });
    },
    async stop() {
      if (runningPid(child)) signal(child, 'SIGCONT', all);
      await stopPid(runningPid(child), { signal: 'SIGINT', graceMs: 20_000 });
    },
    freeze: () => signal(child, 'SIGSTOP', all),
    thaw: () => signal(child, 'SIGCONT', all),
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates a subscription through the delivery service's RPC (no gateway in these tests), for a new
 * organization with an admin key minted in the core's database (as the admin CLI does): the delivery
 * service confirms a token's actor with the core (`coreUrl`), so the actor must be a real key's, as
 * the core authenticates it. Returns the subscription's id and its organization (the bursts' events are that
 * organization's).
 */
export async function subscribeViaRpc(
  services: { deliveryPort: number; corePort: number; databaseUrl: string },
  url: string,
  eventNames: string[],
  extra: Record<string, string> = {},
): Promise<{ id: string; organizationId: string }> {
  const db = coreDb(services.databaseUrl);
  let key: string;
  try {
    const admin = createAdminOperations(db);
    const { id: orgId } = await admin.createOrg(`Fault Org ${randomUUID()}`);
    const { id: userId } = await admin.createUser(orgId, `admin-${randomUUID()}@example.test`, 'Admin', 'admin');
    ({ key } = await admin.createKey({ user: userId, scope: 'organization' }));
  } finally {
    await db.destroy();
  }
  const auth = createClient(AuthService, transportAs('gateway', 'core', `http://127.0.0.1:${services.corePort}`));
  const actor = claimsOf((await auth.authenticate({ key, requestId: 'fault' })).actor!);
  const client = createClient(WebhookService, transportAs('gateway', 'delivery', `http://127.0.0.1:${services.deliveryPort}`));
  const res = await client.createWebhook({
    actor: { ...actor, requestId: '' },
    body: { destinationUrl: url, eventNames, ...extra },
  });
  const webhook = jsonOf(res.resource);
  if (typeof webhook.id !== 'string') throw new Error(`createWebhook answered no id: ${JSON.stringify(webhook)}`);
  return { id: webhook.id, organizationId: actor.organizationId };
}

/**
 * Writes `total` user.updated events into the core's outbox in small
 * transactions (the core's own write path), calling `during` between batches so
 * a test can strike mid-burst. Each payload carries its sequence number.
 */
export async function burst(
  db: Knex,
  organizationId: string,
  total: number,
  during: (written: number) => Promise<void>,
  batch = 20,
): Promise<void> {
  for (let written = 0; written < total; written += batch) {
    await db.transaction(async (trx) => {
      await commitWrite(trx, 'core', {
        rows: [],
        events: Array.from({ length: Math.min(batch, total - written) }, (_, i) => ({
          eventName: 'user.updated',
          entityType: 'user',
          entityId: randomUUID(),
          organizationId,
          actorUserId: null,
          payload: { seq: written + i, changedFields: ['role'] },
        })),
      });
    });
    await during(written + batch);
    await sleep(5);
  }
}

/** Core's schema on the test database, to write the burst (waits for the core to have migrated). */
export function coreDb(databaseUrl: string): Knex {
  return createDb(databaseUrl, { schema: 'core', poolMax: 3 });
}

/** Counts of a burst as received: every event at least once, duplicates only with an already-seen delivery id. */
export interface BurstReport {
  events: number;
  requests: number;
  uniqueEvents: number;
  duplicates: number;
  duplicatesWithNewId: number;
  lost: number;
}

export function report(total: number, r: Receiver): BurstReport {
  const idBySeq = new Map<number, string>();
  let duplicates = 0;
  let duplicatesWithNewId = 0;
  for (const g of r.received) {
    const seq = Number(g.body?.payload?.seq);
    const id = String(g.headers['x-service-delivery-id']);
    const seen = idBySeq.get(seq);
    if (seen === undefined) idBySeq.set(seq, id);
    else {
      duplicates++;
      if (seen !== id) duplicatesWithNewId++;
    }
  }
  let lost = 0;
  for (let i = 0; i < total; i++) if (!idBySeq.has(i)) lost++;
  return { events: total, requests: r.received.length, uniqueEvents: idBySeq.size, duplicates, duplicatesWithNewId, lost };
}

/** Waits until every sequence number arrived (or the deadline passes), then returns the report. */
export async function awaitAll(total: number, r: Receiver, timeoutMs: number): Promise<BurstReport> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rep = report(total, r);
    if (rep.lost === 0 || Date.now() > deadline) return rep;
    await sleep(200);
  }
}
