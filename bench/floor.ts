// The floor under issue 14's CPU goal on this machine: the cluster's shape with nothing in it.
//
//   TEST_DATABASE_URL=postgres://... node --import tsx bench/floor.ts     # BENCH_REQUESTS (4000), BENCH_WARMUP (400)
//
// A client -> a `gateway` hop (node:http, one undici keep-alive call onwards) -> a `core` hop
// (node:http, one prepared statement on Postgres with `pg`) -> Postgres, each hop its own
// process (bench/support/floor-hop.ts), as in the cluster. No framework, no authentication, no
// validation, no protobuf: what is left is what three processes and two loopback TCP hops cost per
// request. Prints req/s, p50 and CPU ms per request of each process at 1, 16 and 64 connections, from
// /proc/<pid>/stat. Its own database (`floor_bench`), so its Postgres backends are counted alone.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { Agent } from 'undici';
import { cpuMeter, pidsMatching, type ProcessGroups } from './support/cpu.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 400);
const DATABASE = 'floor_bench';
const base = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (!base) throw new Error('set TEST_DATABASE_URL (or DATABASE_URL) to a Postgres server');

const admin = new pg.Client({ connectionString: base });
await admin.connect();
const exists = await admin.query('select 1 from pg_database where datname = $1', [DATABASE]);
if (exists.rowCount === 0) await admin.query(`create database ${DATABASE}`);
await admin.end();
const url = new URL(base);
url.pathname = `/${DATABASE}`;

const children: ChildProcess[] = [];
process.once('exit', () => children.forEach((c) => c.kill('SIGKILL')));
async function hop(start: object): Promise<{ origin: string; pid: number }> {
  const child = fork(path.join(import.meta.dirname, 'support', 'floor-hop.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (msg: { port: number }) => resolve(msg.port));
    child.once('exit', (code) => reject(new Error(`floor hop exited (${code})`)));
    child.send(start);
  });
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid! };
}
const core = await hop({ role: 'core', databaseUrl: url.toString() });
const gateway = await hop({ role: 'gateway', coreOrigin: core.origin });

const groups: ProcessGroups = [
  ['gateway hop', () => [gateway.pid]],
  ['core hop', () => [core.pid]],
  ['postgres', () => pidsMatching(`postgres: postgres ${DATABASE} `)],
  ['client', () => [process.pid]],
];
const meter = cpuMeter(groups);

async function drive(agent: Agent, connections: number, count: number): Promise<number[]> {
  const latencies: number[] = [];
  let issued = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (issued++ < count) {
        const t = performance.now();
        const res = await agent.request({ origin: gateway.origin, path: '/read', method: 'GET' });
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return latencies;
}

console.log('| mode | req/s | p50 ms | gateway hop | core hop | postgres | total | client |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const connections of [1, 16, 64]) {
  const agent = new Agent({ connections });
  await drive(agent, connections, WARMUP);
  meter.start();
  const started = performance.now();
  const latencies = (await drive(agent, connections, REQUESTS)).sort((a, b) => a - b);
  const rate = REQUESTS / ((performance.now() - started) / 1000);
  const cpu = meter.measure(REQUESTS);
  await agent.close();
  const [g, c, p, client] = groups.map(([name]) => cpu.get(name) ?? 0);
  const cells = [g, c, p, g + c + p, client].map((v) => v.toFixed(3));
  const mode = connections === 1 ? 'seq' : `c${connections}`;
  console.log(
    `| ${mode} | ${rate.toFixed(0)} | ${latencies[Math.floor(latencies.length / 2)].toFixed(2)} | ${cells.join(' | ')} |`,
  );
}
for (const c of children) c.kill('SIGTERM');
process.exit(0);
