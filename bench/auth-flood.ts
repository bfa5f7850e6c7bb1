// A flood of invalid API keys from one client address (issue 26): what the flood costs the
// cluster, and whether a valid key from the same address still gets through. Run while the local
// Postgres, Kafka and Redis run:
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 \
//     node --import tsx bench/auth-flood.ts
//
// Core, delivery and gateway run as processes, as in production, the gateway with its limits in
// Redis (REDIS_URL, default redis://127.0.0.1:6379) behind one trusted proxy: every request of a
// run comes from one made-up client address (X-Forwarded-For), its own, so nothing else sharing
// that Redis is limited by it. For each kind of flood (the same invalid key over and over, keys not
// of the `fbk_` shape, new random keys of the right shape), BENCH_FLOODERS connections (32) send it
// in a closed loop for BENCH_SECONDS (10), after the address is over its failed-authentication limit
// (AUTH_FAILURE_LIMIT_PER_MINUTE, 120). Meanwhile a prober, from the same address, every
// BENCH_PROBE_MS (25), sends one request with a key the gateway has never seen (minted before the
// run) and one with a key it knows. It prints, per flood: the flood's rate and answers, the CPU ms
// per flood request of the gateway, the core and Postgres (the bench database's backends, from
// /proc), and the prober's success rate and latency for new and known keys; first the prober alone.
import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import { createAdminOperations } from '@cluster/core';
import { createDb } from '@cluster/db';
import { startBenchCluster, type BenchCluster } from './support/cluster.ts';
import { GROUP } from './support/cpu.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FLOODERS = Number(process.env.BENCH_FLOODERS ?? 32);
const PROBE_MS = Number(process.env.BENCH_PROBE_MS ?? 25);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADDRESS = `198.51.100.${1 + (randomBytes(1)[0] % 254)}`;

const wellFormed = () => `fbk_${randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8)}_${'x'.repeat(40)}`;
const repeated = wellFormed();
/** The prober alone, then each flood (its next key). */
const PHASES: { name: string; nextKey?: () => string }[] = [
  { name: 'no flood' },
  { name: 'the same invalid key', nextKey: () => repeated },
  { name: 'keys not of the fbk_ shape', nextKey: () => `nope-${randomBytes(4).toString('hex')}` },
  { name: 'new random keys', nextKey: wellFormed },
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

/** One GET /me from the run's address: the status and how long it took. */
async function call(agent: Agent, origin: string, key: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await agent.request({
    origin,
    path: '/api/v1/me',
    method: 'GET',
    headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': ADDRESS },
  });
  await res.body.dump();
  return { status: res.statusCode, ms: performance.now() - started };
}

/** What the prober saw for one kind of key. */
interface Probed {
  ok: number;
  total: number;
  latencies: number[];
}

/** Every PROBE_MS until `running()` is false: one request with a never-seen key, one with a known key. */
async function probe(agent: Agent, origin: string, fresh: string[], known: string, running: () => boolean) {
  const seen = { fresh: { ok: 0, total: 0, latencies: [] } as Probed, known: { ok: 0, total: 0, latencies: [] } as Probed };
  const record = (p: Probed, a: { status: number; ms: number }) => {
    p.total++;
    if (a.status === 200) p.ok++;
    p.latencies.push(a.ms);
  };
  while (running()) {
    const next = performance.now() + PROBE_MS;
    const key = fresh.pop();
    if (!key) throw new Error('out of fresh keys: mint more (BENCH_PROBE_MS is too low for BENCH_SECONDS)');
    record(seen.fresh, await call(agent, origin, key));
    record(seen.known, await call(agent, origin, known));
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  return seen;
}

/** `FLOODERS` connections sending `nextKey()` in a closed loop until `running()` is false: answers by status. */
async function flood(origin: string, nextKey: () => string, running: () => boolean) {
  const agent = new Agent({ connections: FLOODERS });
  const statuses = new Map<number, number>();
  try {
    await Promise.all(
      Array.from({ length: FLOODERS }, async () => {
        while (running()) {
          const { status } = await call(agent, origin, nextKey());
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
  } finally {
    await agent.close();
  }
  return statuses;
}

/** Keys of a new organization's admin the gateway has never seen. */
async function mintKeys(databaseUrl: string, count: number): Promise<{ known: string; fresh: string[] }> {
  const db = createDb(databaseUrl, { schema: 'core', poolMax: 1 });
  try {
    const admin = createAdminOperations(db);
    const { id: orgId } = await admin.createOrg('Flooded');
    const { id: userId } = await admin.createUser(
      orgId,
      `admin-${randomBytes(4).toString('hex')}@example.test`,
      'Admin',
      'admin',
    );
    const keys: string[] = [];
    for (let i = 0; i <= count; i++) keys.push((await admin.createKey({ user: userId, scope: 'organization' })).key);
    return { known: keys.pop()!, fresh: keys };
  } finally {
    await db.destroy();
  }
}

const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const summary = (p: Probed) => {
  const sorted = [...p.latencies].sort((a, b) => a - b);
  return `${p.ok}/${p.total} | ${fmt(percentile(sorted, 0.5), 1)} | ${fmt(percentile(sorted, 0.99), 1)}`;
};

async function main(): Promise<void> {
  const cluster: BenchCluster = await startBenchCluster('authflood', { REDIS_URL, TRUSTED_PROXY_HOPS: '1' });
  const origin = new URL(`http://127.0.0.1:${cluster.gateway.port}`).origin;
  const probes = Math.ceil(((SECONDS + 2) * 1000) / PROBE_MS);
  const keys = await mintKeys(cluster.databaseUrl, probes * PHASES.length);
  const agent = new Agent({ connections: 1 });
  const meter = cluster.meter();
  const rows: string[] = [];
  try {
    console.log(`client address ${ADDRESS}; ${FLOODERS} flooding connections, ${SECONDS} s per flood`);
    for (const { name, nextKey } of PHASES) {
      // Over the limit before it is measured: a burst of failures of its own.
      if (nextKey)
        await flood(
          origin,
          wellFormed,
          (
            (n) => () =>
              n-- > 0
          )(200),
        );
      const end = performance.now() + SECONDS * 1000;
      const running = () => performance.now() < end;
      meter.start();
      const [statuses, seen] = await Promise.all([
        nextKey ? flood(origin, nextKey, running) : Promise.resolve(new Map<number, number>()),
        probe(agent, origin, keys.fresh, keys.known, running),
      ]);
      const floodRequests = [...statuses.values()].reduce((a, b) => a + b, 0);
      const cpu = meter.measure(Math.max(1, floodRequests));
      const answers = [...statuses].map(([s, n]) => `${n} × ${s}`).join(', ') || '-';
      const perRequest = (group: string) => (nextKey ? fmt(cpu.get(group) ?? 0, 3) : '-');
      rows.push(
        `| ${name} | ${fmt(floodRequests / SECONDS, 0)} | ${answers} | ${perRequest('gateway')} | ${perRequest('core')} | ${perRequest(GROUP.postgres)} | ${summary(seen.fresh)} | ${summary(seen.known)} |`,
      );
      console.log(rows.at(-1));
    }
  } catch (err) {
    console.error(cluster.tails());
    throw err;
  } finally {
    await agent.close();
    await cluster.stop();
  }
  console.log(
    '\n| flood | flood req/s | flood answers | gateway CPU ms/req | core CPU ms/req | postgres CPU ms/req | new valid key: 200s | p50 ms | p99 ms | known key: 200s | p50 ms | p99 ms |',
  );
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
}

await main();
