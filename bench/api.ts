// What an API request costs (issue 14): throughput, latency and CPU per request of each
// process, for the routes an integrator calls most, against the bare node:http ceiling.
// Run while the local Postgres and Kafka run:
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:55432/postgres KAFKA_BROKERS=127.0.0.1:29092 \
//     node --import tsx bench/api.ts
//
// Core, delivery and gateway run as processes, as in production; this process is the
// load client (undici, one connection per concurrent client). In one run it measures:
//   - the ceiling: a node:http server in a child process answering the exact bytes a
//     real `GET /me` returned, to the same request;
//   - GET /me, GET /projects/:id, GET /projects/:id/entries (a full page of 25) and
//     POST /projects/:id/entries, without and with an Idempotency-Key (a new one per request:
//     the path every SDK write takes, issue 35);
// each sequentially (one connection, one request at a time) and with 16 and 64
// connections in a closed loop. For each it prints req/s, p50/p99 latency and the CPU ms
// per request of the gateway, the core and Postgres (the bench database's backends), from
// /proc (what the kernel charged), plus the client's own CPU: the client shares the two
// cores. It checks that every write was audited, and prints what the idle cluster burns.
//
// Knobs: BENCH_REQUESTS (2000 per route and mode), BENCH_WARMUP (200 untimed requests before
// each measurement, same connections), BENCH_IDLE_SECONDS (5; 0 skips the idle figure),
// BENCH_PROFILE=dir (a CPU profile of each service, summarised by bench/support/top-frames.ts),
// BENCH_NODE_ARGS (extra node flags for the services), BENCH_ROUTES (a regular expression: only the
// routes whose name it matches, e.g. `POST`; the bare server always runs, as the reference).
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Agent } from 'undici';
import { createDb } from '@cluster/db';
import { startBareServer, type BareServer, type CapturedAnswer } from './support/bare-http.ts';
import { bugReport, startBenchCluster, type BenchCluster, type BenchOrg } from './support/cluster.ts';
import { GROUP } from './support/cpu.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5);
const ROUTES = new RegExp(process.env.BENCH_ROUTES ?? '');
const PROJECTS = 8;
const PAGE = 25;
const BARE = 'bare server';

type Mode = 'seq' | 'c16' | 'c64';
const CONNECTIONS: Record<Mode, number> = { seq: 1, c16: 16, c64: 64 };

/** One route as the client calls it. */
interface Target {
  name: string;
  origin: string;
  /** The bare node:http server rather than the cluster. */
  bare?: boolean;
  method: 'GET' | 'POST';
  /** The path of the next request (writes go round-robin over projects). */
  path: () => string;
  headers: Record<string, string>;
  /** Headers of each request besides `headers` (a write's new Idempotency-Key). */
  extraHeaders?: () => Record<string, string>;
  /** The body of the request whose `path()` was just taken. */
  body?: () => string;
  status: number;
  /** Called with each answer's body (the writes collect the ids of the entries). */
  onAnswer?: (body: Buffer) => void;
  goals: Partial<Record<Mode, Goal[]>>;
}

/** A target figure of issue 14 and how to check it. */
interface Goal {
  label: string;
  met: (r: Measurement) => boolean;
}

/** The figures of one route in one mode. */
interface Measurement {
  target: Target;
  mode: Mode;
  rate: number;
  p50: number;
  p99: number;
  /** CPU ms per request by process group. */
  cpu: Map<string, number>;
}

const perSecond = (min: number): Goal => ({ label: `>= ${min.toLocaleString('en')} req/s`, met: (r) => r.rate >= min });
const p50Within = (ms: number): Goal => ({ label: `p50 <= ${ms} ms`, met: (r) => r.p50 <= ms });
const cpuWithin = (ms: number): Goal => ({ label: `CPU <= ${ms} ms`, met: (r) => serviceCpu(r) <= ms });

/** Gateway + core + Postgres (bench database) CPU per request: the goal's "total". */
const serviceCpu = (r: Measurement) => ['gateway', 'core', GROUP.postgres].reduce((sum, g) => sum + (r.cpu.get(g) ?? 0), 0);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** One request; throws unless the answer has the expected status. */
async function send(agent: Agent, target: Target): Promise<void> {
  const res = await agent.request({
    origin: target.origin,
    path: target.path(),
    method: target.method,
    headers: target.extraHeaders ? { ...target.headers, ...target.extraHeaders() } : target.headers,
    body: target.body?.(),
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== target.status) {
    throw new Error(`${target.name}: ${res.statusCode} ${body.toString('utf8').slice(0, 500)}`);
  }
  target.onAnswer?.(body);
}

/** `count` requests by `connections` clients in a closed loop; returns each one's latency in ms. */
async function drive(agent: Agent, target: Target, connections: number, count: number): Promise<number[]> {
  const latencies: number[] = [];
  let issued = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (issued < count) {
        issued++;
        const t = performance.now();
        await send(agent, target);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return latencies;
}

/** Warms up on fresh connections, then times REQUESTS requests and meters every process's CPU. */
async function measure(target: Target, mode: Mode, meter: ReturnType<BenchCluster['meter']>): Promise<Measurement> {
  const connections = CONNECTIONS[mode];
  const agent = new Agent({ connections });
  try {
    await drive(agent, target, connections, WARMUP);
    meter.start();
    const started = performance.now();
    const latencies = await drive(agent, target, connections, REQUESTS);
    const seconds = (performance.now() - started) / 1000;
    const cpu = meter.measure(REQUESTS);
    latencies.sort((a, b) => a - b);
    return { target, mode, rate: REQUESTS / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), cpu };
  } finally {
    await agent.close();
  }
}

/** An organization with PROJECTS projects, the first holding a full page of entries. */
async function seed(cluster: BenchCluster): Promise<BenchOrg> {
  const org = await cluster.newOrg('Bench API', PROJECTS);
  for (let i = 0; i < PAGE; i++) {
    const res = await cluster.call(org.key, 'POST', `/projects/${org.projectIds[0]}/entries`, {
      type: 'feedback',
      title: `Entry ${i}`,
      description: 'The export to CSV drops the last column when a field contains a comma.',
    });
    if (res.status !== 201) throw new Error(`entry failed: ${JSON.stringify(res.body)}`);
  }
  return org;
}

/** The exact answer of one real `GET /me`, minus the headers node:http writes itself. */
async function captureMe(origin: string, headers: Record<string, string>): Promise<CapturedAnswer> {
  const agent = new Agent({ connections: 1 });
  try {
    const res = await agent.request({ origin, path: '/api/v1/me', method: 'GET', headers });
    const body = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode !== 200) throw new Error(`GET /me: ${res.statusCode} ${body.toString('utf8')}`);
    const own = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
    const kept = Object.entries(res.headers).filter(([name, value]) => !own.has(name) && value !== undefined);
    return {
      status: res.statusCode,
      headers: Object.fromEntries(kept) as CapturedAnswer['headers'],
      bodyBase64: body.toString('base64'),
    };
  } finally {
    await agent.close();
  }
}

/** The routes of issue 14, the bare ceiling first, with their goals. */
function targets(origin: string, bare: BareServer, org: BenchOrg, written: string[]): Target[] {
  const headers = { authorization: `Bearer ${org.key}` };
  const read = (name: string, path: string, goals: Target['goals']): Target => ({
    name,
    origin,
    method: 'GET',
    path: () => `/api/v1${path}`,
    headers,
    status: 200,
    goals,
  });
  const projectGoals = { seq: [p50Within(2)], c16: [perSecond(1500), cpuWithin(0.6)] };
  let n = 0;
  const write = (name: string, extra: () => Record<string, string>): Target => ({
    name,
    origin,
    method: 'POST',
    path: () => `/api/v1/projects/${org.projectIds[++n % PROJECTS]}/entries`,
    headers: { ...headers, 'content-type': 'application/json' },
    extraHeaders: extra,
    body: () => JSON.stringify(bugReport(n)),
    status: 201,
    onAnswer: (body) => written.push((JSON.parse(body.toString('utf8')) as { id: string }).id),
    goals: { c16: [perSecond(800)] },
  });
  return [
    { ...read(`${BARE} (GET /me bytes)`, '/me', {}), origin: bare.origin, bare: true },
    read('GET /me', '/me', { c16: [perSecond(3000), cpuWithin(0.6)] }),
    read('GET /projects/:id', `/projects/${org.projectIds[0]}`, projectGoals),
    read(`GET /projects/:id/entries (${PAGE})`, `/projects/${org.projectIds[0]}/entries`, projectGoals),
    write('POST /projects/:id/entries', () => ({})),
    write('POST /projects/:id/entries + Idempotency-Key', () => ({ 'idempotency-key': randomUUID() })),
  ].filter((t) => t.bare || ROUTES.test(t.name));
}

/** Checks that the page really is full, so the entries figure is the cost of 25 entries. */
async function checkPage(cluster: BenchCluster, org: BenchOrg): Promise<void> {
  const res = await cluster.call(org.key, 'GET', `/projects/${org.projectIds[0]}/entries`);
  const size = (res.body as { data: unknown[] }).data.length;
  if (size !== PAGE) throw new Error(`the entries page holds ${size} entries, not ${PAGE}`);
}

/** How many of the written entries have their `entry created` audit record. */
async function countAudited(cluster: BenchCluster, ids: string[]): Promise<number> {
  const db = createDb(cluster.databaseUrl, { schema: 'core', poolMax: 1 });
  try {
    const [{ count }] = await db('audit_events')
      .where({ entityType: 'entry', action: 'created' })
      .whereIn('entityId', ids)
      .count({ count: '*' });
    return Number(count);
  } finally {
    await db.destroy();
  }
}

/** What the cluster burns doing nothing (polls, heartbeats, metrics), per process. */
async function idleCpu(meter: ReturnType<BenchCluster['meter']>): Promise<string> {
  meter.start();
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  return meter.report(IDLE_SECONDS, 'second');
}

const ms = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(3));

/** The markdown table of every measurement, with the goals and whether each is met. */
function table(results: Measurement[]): string {
  const lines = [
    '| route | mode | req/s | p50 ms | p99 ms | gateway | core | postgres | total | client | goal | met |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const r of results) {
    const goals = r.target.goals[r.mode] ?? [];
    const service = r.target.bare
      ? ['-', '-', '-', ms(r.cpu.get(BARE))]
      : [ms(r.cpu.get('gateway')), ms(r.cpu.get('core')), ms(r.cpu.get(GROUP.postgres)), ms(serviceCpu(r))];
    lines.push(
      `| ${r.target.name} | ${r.mode} | ${r.rate.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${service.join(' | ')} | ` +
        `${ms(r.cpu.get(GROUP.client))} | ${goals.map((g) => g.label).join('; ') || '-'} | ` +
        `${goals.map((g) => (g.met(r) ? 'yes' : 'no')).join('; ') || '-'} |`,
    );
  }
  return lines.join('\n');
}

/** The processes outside the goal's total, per request: the write's fan-out, Kafka, the rest of Postgres. */
function otherTable(results: Measurement[]): string {
  const groups = ['delivery', GROUP.kafka, GROUP.postgresRest];
  const lines = [`| route | mode | ${groups.join(' | ')} |`, `|---|---|${groups.map(() => '---:').join('|')}|`];
  for (const r of results) lines.push(`| ${r.target.name} | ${r.mode} | ${groups.map((g) => ms(r.cpu.get(g))).join(' | ')} |`);
  return lines.join('\n');
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

async function main() {
  console.log(`node ${process.version}, ${os.cpus().length} cores, load average ${loadAverage()}`);
  const cluster = await startBenchCluster('benchapi');
  let bare: BareServer | undefined;
  try {
    const org = await seed(cluster);
    await checkPage(cluster, org);
    const origin = `http://127.0.0.1:${cluster.gateway.port}`;
    bare = await startBareServer(await captureMe(origin, { authorization: `Bearer ${org.key}` }));
    const bareServer = bare;
    const meter = cluster.meter([[BARE, () => [bareServer.pid]]]);
    const written: string[] = [];
    const results: Measurement[] = [];
    for (const target of targets(origin, bare, org, written)) {
      for (const mode of Object.keys(CONNECTIONS) as Mode[]) {
        const r = await measure(target, mode, meter);
        console.log(
          `${target.name} ${mode}: ${r.rate.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
            `CPU ms/request ${[...r.cpu].map(([g, v]) => `${g} ${v.toFixed(3)}`).join(', ')}`,
        );
        results.push(r);
      }
    }
    const audited = await countAudited(cluster, written);
    const idle = IDLE_SECONDS > 0 ? await idleCpu(meter) : undefined;

    console.log(`\n## ${REQUESTS} requests per route and mode (after ${WARMUP} untimed), CPU in ms per request\n`);
    console.log(table(results));
    console.log('\n"total" is gateway + core + postgres (the bench database\'s backends); for the bare server, its own process.');
    console.log('"client" is this process (undici), on the same two cores. Goals are those of issue 14.\n');
    console.log(otherTable(results));
    console.log(
      `\nwrites audited: ${audited} of ${written.length} entries created ${audited === written.length ? '(all)' : '(MISSING)'}`,
    );
    if (idle) console.log(`\nidle for ${IDLE_SECONDS} s, CPU per second:\n${idle}`);
    console.log(`\nload average at the end: ${loadAverage()}`);
    if (process.env.BENCH_PROFILE) {
      console.log(`profiles in ${process.env.BENCH_PROFILE}: gateway pid ${cluster.gateway.pid}, core pid ${cluster.core.pid}`);
    }
    if (audited !== written.length) process.exitCode = 1;
  } catch (err) {
    console.error(cluster.tails());
    throw err;
  } finally {
    await bare?.stop();
    await cluster.stop();
  }
}

await main();
