import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { sleep } from '../support/poll.ts';
import { mintOrgKey } from '../support/process-cluster.ts';
import { SoakInterrupted, startChaosCluster } from './cluster.ts';
import { runFaults, type PlannedFault } from './faults.ts';
import { startLoad } from './load.ts';
import { formatReport, summarise, type Committed, type SoakReport } from './report.ts';
import { startVerifyingReceiver, type ApiCall, type VerifyingReceiver } from './webhooks.ts';

export { SoakInterrupted };

/** The chaos soak's settings (bench/chaos.ts reads them from CHAOS_* variables; test/chaos.test.ts fixes them). */
export interface SoakOptions {
  durationS: number;
  writesPerSecond: number;
  readsPerSecond: number;
  /** Between one fault's start and the next's, seconds, drawn uniformly. */
  faultIntervalS: [number, number];
  /** How long a freeze lasts, seconds, drawn uniformly. */
  freezeS: [number, number];
  /** Fixed faults in order instead of random ones. */
  plan?: PlannedFault[];
  subscriptions: number;
  gateways: number;
  /** After the load stops, how long to wait for every webhook. */
  drainS: number;
  requestTimeoutMs: number;
  /** Seeds the fault draws (the same seed, the same faults). */
  seed: number;
  /** Where the report is written as JSON, when given. */
  reportPath?: string;
  /** Aborting ends the soak early (Ctrl-C): faults end, the load stops, everything is stopped. */
  signal?: AbortSignal;
  log: (line: string) => void;
}

/** No fault starts in the last seconds of the load, so the last one's recovery is measured too. */
const QUIET_TAIL_MS = 15_000;

/**
 * The chaos soak (issue 26): a cluster of real processes on a private Postgres and Kafka, a steady
 * load of entry creates and reads through the gateways, webhooks to a verifying receiver, and one
 * fault at a time (freeze, kill and start again) on a random member. Returns the report (and
 * writes it to `reportPath`); stops everything it started, whatever happens.
 */
export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const cluster = await startChaosCluster({ gateways: o.gateways, signal: o.signal, log: o.log });
  let receiver: VerifyingReceiver | undefined;
  let progress: NodeJS.Timeout | undefined;
  try {
    receiver = await startVerifyingReceiver();
    const { key } = await mintOrgKey(cluster.databaseUrl, 'Chaos soak');
    const api = apiCall(cluster.baseUrl, key);
    const project = await api('POST', '/projects', { name: 'Chaos soak', description: 'written under faults' });
    if (project.status !== 201) throw new Error(`POST /projects answered ${project.status}`);
    const projectId = (project.body as { id: string }).id;
    const subscriptions = await receiver.subscribe(api, o.subscriptions, 'entry.created');

    o.log(`load for ${o.durationS} s: ${o.writesPerSecond} writes/s, ${o.readsPerSecond} reads/s; fault seed ${o.seed}`);
    const startedAt = Date.now();
    const end = startedAt + o.durationS * 1000;
    const load = startLoad({
      baseUrl: cluster.baseUrl,
      apiKey: key,
      projectId,
      writesPerSecond: o.writesPerSecond,
      readsPerSecond: o.readsPerSecond,
      requestTimeoutMs: o.requestTimeoutMs,
      keyPrefix: `chaos-${startedAt}`,
      signal: o.signal,
    });
    const arrivals = receiver.arrivals;
    progress = setInterval(() => {
      const p = load.progress();
      o.log(
        `t=${Math.round((Date.now() - startedAt) / 1000)} s: ${p.writes} writes done (${p.accepted} accepted), ${p.attempts} requests, ${arrivals.length} webhooks; gateways in rotation: ${cluster.gatewaysReady().join(', ') || 'none'}`,
      );
    }, 30_000).unref();
    const faults = await runFaults(cluster.members, {
      intervalMs: [o.faultIntervalS[0] * 1000, o.faultIntervalS[1] * 1000],
      holdMs: [o.freezeS[0] * 1000, o.freezeS[1] * 1000],
      lastStartBefore: end - Math.min(QUIET_TAIL_MS, (o.durationS * 1000) / 4),
      plan: o.plan,
      random: seeded(o.seed),
      signal: o.signal,
      log: o.log,
      onFault: (f) => o.log(`${f.member} back ${((f.backAt - f.endedAt) / 1000).toFixed(1)} s after the fault ended`),
    });
    await sleep(end - Date.now(), o.signal);
    o.log('stopping the load; writes still retrying finish first');
    const result = await load.stop();
    // Interrupted: the figures would measure the interruption (a Ctrl-C reaches the services too).
    if (o.signal?.aborted) throw new SoakInterrupted();
    const committed = await drain(cluster.databaseUrl, projectId, receiver, o);
    if (o.signal?.aborted) throw new SoakInterrupted();
    const report = summarise({
      settings: settingsOf(o),
      startedAt,
      load: result,
      faults,
      committed,
      subscriptions,
      arrivals,
      invalidSignatures: receiver.invalid(),
    });
    console.log(formatReport(report));
    if (o.reportPath) {
      mkdirSync(path.dirname(o.reportPath), { recursive: true });
      writeFileSync(o.reportPath, `${JSON.stringify(report, null, 2)}\n`);
      o.log(`report written to ${o.reportPath}`);
    }
    if (report.lost) o.log(`the services' last lines:\n${cluster.tails()}`);
    return report;
  } catch (err) {
    if (!(err instanceof SoakInterrupted)) o.log(`the services' last lines:\n${cluster.tails()}`);
    throw err;
  } finally {
    clearInterval(progress);
    o.log('stopping the cluster');
    await receiver?.close();
    await cluster.stop();
  }
}

/** Calls of the API for the set-up (organization's project, subscriptions). */
function apiCall(baseUrl: string, key: string): ApiCall {
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: res.status, body: await res.json() };
  };
}

/**
 * Waits (up to `drainS`) until every entry in the database has arrived at every subscription,
 * and returns the entries (read again at the end: the ground truth the report counts against).
 */
async function drain(databaseUrl: string, projectId: string, receiver: VerifyingReceiver, o: SoakOptions): Promise<Committed[]> {
  const deadline = Date.now() + o.drainS * 1000;
  let committed = await committedEntries(databaseUrl, projectId);
  let logged = 0;
  for (;;) {
    const arrived = Array.from({ length: o.subscriptions }, () => new Set<string>());
    for (const a of receiver.arrivals) arrived[a.subscription].add(a.entryId);
    const missing = arrived.reduce((n, set) => n + committed.filter((c) => !set.has(c.id)).length, 0);
    if (missing === 0 || Date.now() > deadline || o.signal?.aborted) break;
    if (Date.now() - logged > 10_000) {
      o.log(`waiting for ${missing} webhooks (of ${committed.length} entries x ${o.subscriptions} subscriptions)`);
      logged = Date.now();
    }
    await sleep(500);
  }
  committed = await committedEntries(databaseUrl, projectId);
  return committed;
}

/** The project's entries in the database, each an entry.created committed. */
async function committedEntries(databaseUrl: string, projectId: string): Promise<Committed[]> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; title: string; createdAt: Date }>(
      'SELECT id, title, "createdAt" FROM core.entries WHERE "projectId" = $1',
      [projectId],
    );
    return rows.map((r) => ({ id: r.id, title: r.title, createdAt: r.createdAt.getTime() }));
  } finally {
    await client.end();
  }
}

/** The settings a report records (what makes a run comparable to another). */
function settingsOf(o: SoakOptions): Record<string, unknown> {
  const { durationS, writesPerSecond, readsPerSecond, faultIntervalS, freezeS, plan, subscriptions, gateways, drainS, seed } = o;
  return { durationS, writesPerSecond, readsPerSecond, faultIntervalS, freezeS, plan, subscriptions, gateways, drainS, seed };
}

/** A small seeded generator (mulberry32): the same CHAOS_SEED draws the same faults. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
