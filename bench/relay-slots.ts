// Events/s of the outbox relay by slot count, with two core processes as relays (issue 39).
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 node --import tsx bench/relay-slots.ts
//
// For each slot count of BENCH_SLOTS (1,2,4), on a database of its own: two cores started with
// OUTBOX_RELAY_SLOTS set to it; once their leases settle, BENCH_ROUNDS times, BENCH_EVENTS events
// (BENCH_PER_ENTITY per entity) committed in one transaction, timed from the commit to an empty
// outbox (every row acknowledged by Kafka and deleted). Prints events/s per round, what each
// relay published, and the CPU per event of each relay process and of the database's backends,
// with each relay's busy share of the round (CPU time / wall time: under 1, it waits on round trips).
import { randomUUID } from 'node:crypto';
import { createDb, ensureDatabase } from '@cluster/db';
import { commitWrite } from '@cluster/outbox';
import { dropDatabase, freshDatabaseUrl, requireEnv } from '../test/support/cluster.ts';
import { buildServices, waitUntil } from '../test/support/processes.ts';
import { serviceProcess, type ServiceProcess } from '../test/faults/support.ts';
import { clusterGroups, cpuMeter, GROUP } from './support/cpu.ts';

const SLOTS = (process.env.BENCH_SLOTS ?? '1,2,4').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20000);
const PER_ENTITY = Number(process.env.BENCH_PER_ENTITY ?? 10);

async function published(core: ServiceProcess): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${core.port}/metrics`)).text();
  return Number(/^core_outbox_published_total(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? 0);
}

async function run(slots: number): Promise<void> {
  const { brokers } = requireEnv();
  const databaseUrl = freshDatabaseUrl('relaybench');
  await ensureDatabase(databaseUrl);
  const env = {
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_TOPIC_PREFIX: `rb${slots}${randomUUID().slice(0, 6)}.`,
    OUTBOX_RELAY_SLOTS: String(slots),
    OUTBOX_RELAY_IDLE_MS: '100',
    CLUSTER_ENV: 'development',
  };
  const cores = [await serviceProcess('core', env), await serviceProcess('core', env)];
  const db = createDb(databaseUrl, { schema: 'core', poolMax: 2 });
  try {
    for (const core of cores) await core.start();
    const relaysLeading = Math.min(slots, 2);
    await waitUntil(
      'the leases settled',
      async () => {
        const { rows } = await db.raw<{ rows: { n: number }[] }>(
          `SELECT count(DISTINCT holder)::int AS n FROM core.outbox_leases WHERE "expiresAt" > now()`,
        );
        return rows[0].n === relaysLeading;
      },
      30_000,
    );
    const groups = clusterGroups(
      cores.map((core, i) => ({ name: `relay ${i}`, pid: () => core.pid })),
      new URL(databaseUrl).pathname.slice(1),
    ).filter(([name]) => name.startsWith('relay') || name === GROUP.postgres);
    const meter = cpuMeter(groups);
    const [{ id: orgId }] = await db('organizations').insert({ name: 'bench' }).returning<{ id: string }[]>('id');
    for (let round = 0; round < ROUNDS; round++) {
      const entities = Array.from({ length: EVENTS / PER_ENTITY }, () => randomUUID());
      const before = await Promise.all(cores.map(published));
      await db.transaction(async (trx) => {
        for (let n = 0; n < PER_ENTITY; n++) {
          const events = entities.map((entityId) => ({
            eventName: 'project.updated',
            entityType: 'project',
            entityId,
            organizationId: orgId,
            actorUserId: null,
            payload: { n, title: 'an event of about the size of a small update' },
          }));
          for (let i = 0; i < events.length; i += 1000)
            await commitWrite(trx, 'core', { rows: [], events: events.slice(i, i + 1000) });
        }
      });
      meter.start();
      const t0 = performance.now();
      while (Number((await db('outbox').count({ n: '*' }))[0].n) > 0) await new Promise((r) => setTimeout(r, 20));
      const seconds = (performance.now() - t0) / 1000;
      const cpu = meter.measure(EVENTS);
      const after = await Promise.all(cores.map(published));
      console.log(
        JSON.stringify({
          slots,
          round,
          events: EVENTS,
          seconds: Number(seconds.toFixed(2)),
          eventsPerSecond: Math.round(EVENTS / seconds),
          publishedByRelay: after.map((a, i) => a - before[i]),
          cpuMsPerEvent: Object.fromEntries([...cpu].map(([name, ms]) => [name, Number(ms.toFixed(3))])),
          relayBusy: cores.map((_, i) => Number(((cpu.get(`relay ${i}`)! * EVENTS) / (seconds * 1000)).toFixed(2))),
        }),
      );
    }
  } finally {
    for (const core of cores) await core.stop().catch(() => {});
    await db.destroy();
    await dropDatabase(databaseUrl);
  }
}

await buildServices();
for (const slots of SLOTS) await run(slots);
