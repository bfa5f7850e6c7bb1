// What one delivery costs Postgres, by the way its rows are written (no HTTP, no Kafka).
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 node --import tsx bench/delivery-rows.ts
//
// For BENCH_DELIVERIES deliveries (fanned out BENCH_FANOUT at a time, one origin), each
// lifecycle runs the sender's statements against a fresh schema and prints the CPU of
// the bench database's Postgres backends (and apart, of every other Postgres process on the machine),
// the WAL written and this client's CPU, per delivery:
//
// - claimed:   the fan-out inserts due rows; the sender claims BENCH_CLAIM at a time
//              (a lease), then records a 2xx for each (status, attempt row).
// - handed off: the fan-out inserts rows already leased to the local sender, which
//              records a 2xx for each (no claim).
// - first attempt, then row: the row is written once, after its first attempt,
//              with the attempt: what a delivery costs when it is sent before it is
//              stored (the fan-out's direct path).
//
// BENCH_SQL (statements separated by ';') runs after the migrations, to try a schema change.
import { randomUUID } from 'node:crypto';
import { createDb, ensureDatabase, migrate, type Knex } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl } from '../test/support/cluster.ts';
import { migrations } from '../services/delivery/src/migrations/index.ts';
import type { AttemptRecord } from '../services/delivery/src/features/attempts/store.ts';
import type { ClaimedDelivery, NewDelivery } from '../services/delivery/src/features/deliveries/queue-store.ts';
import { createStores, type Stores } from '../services/delivery/src/stores.ts';
import { cpuMeter, pidsWhere } from './support/cpu.ts';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20000);
const FANOUT = Number(process.env.BENCH_FANOUT ?? 256);
const CLAIM = Number(process.env.BENCH_CLAIM ?? 32);
const RECORD = Number(process.env.BENCH_RECORD ?? 32);
const ORIGIN = 'http://receiver.example.test';

const ok = { ok: true, responseCode: 200, responseBody: 'ok', error: null, durationMs: 3 };

async function lifecycle(name: string, run: (db: Knex, stores: Stores, rows: () => NewDelivery[]) => Promise<void>) {
  const url = freshDatabaseUrl('rows');
  await ensureDatabase(url);
  const db = createDb(url, { schema: 'delivery', poolMax: 2 });
  try {
    await migrate(db, 'delivery', migrations);
    for (const sql of (process.env.BENCH_SQL ?? '')
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean))
      await db.raw(sql);
    const org = randomUUID();
    const [sub] = await db('delivery.subscriptions')
      .insert({
        organizationId: org,
        destinationUrl: `${ORIGIN}/hook`,
        destinationOrigin: ORIGIN,
        eventNames: ['entry.created'],
        secretSealed: 'x',
      })
      .returning<{ id: string }[]>('id');
    // Bodies the size of a real entry.created envelope.
    const rows = () =>
      Array.from({ length: FANOUT }, (): NewDelivery => {
        const id = randomUUID();
        return {
          id,
          createdAt: new Date(),
          organizationId: org,
          subscriptionId: sub.id,
          eventId: randomUUID(),
          eventName: 'entry.created',
          body: JSON.stringify({
            id,
            eventName: 'entry.created',
            schemaVersion: 1,
            entityType: 'entry',
            entityId: randomUUID(),
            payload: { title: 'x'.repeat(300) },
          }),
        };
      });
    const stores = createStores(db);
    await run(db, stores, rows); // warm-up: plans, caches
    await db.raw('TRUNCATE delivery.deliveries CASCADE');
    // The backends of this bench's database apart from the rest of the server (checkpointer, WAL writer, and
    // on a shared machine other sessions' servers and databases, which the name 'postgres' also matches).
    const database = new URL(url).pathname.slice(1);
    const ofBench = (cmdline: string) => cmdline.startsWith('postgres: ') && cmdline.includes(` ${database} `);
    const meter = cpuMeter([
      ['postgres (bench database)', () => pidsWhere(ofBench)],
      ['postgres (rest, all servers)', () => pidsWhere((cmdline) => cmdline.includes('postgres') && !ofBench(cmdline))],
      ['bench (client)', () => [process.pid]],
    ]);
    const [{ lsn: walBefore }] = (await db.raw<{ rows: { lsn: string }[] }>('SELECT pg_current_wal_lsn() AS lsn')).rows;
    meter.start();
    const t0 = performance.now();
    for (let done = 0; done < DELIVERIES; done += FANOUT) await run(db, stores, rows);
    const ms = performance.now() - t0;
    const report = meter.report(DELIVERIES, 'delivery');
    const [{ bytes }] = (
      await db.raw<{ rows: { bytes: number }[] }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?)::bigint AS bytes', [walBefore])
    ).rows;
    console.log(
      `\n== ${name}: ${DELIVERIES} deliveries in ${ms.toFixed(0)} ms, ${(Number(bytes) / DELIVERIES).toFixed(0)} bytes of WAL per delivery`,
    );
    console.log(report);
  } finally {
    await db.destroy();
    await dropDatabase(url);
  }
}

const succeeded = (d: ClaimedDelivery): AttemptRecord => ({
  delivery: d,
  attemptedAt: new Date(),
  decision: { kind: 'succeeded' },
  result: ok,
});
const claimed = (r: NewDelivery): ClaimedDelivery => ({
  id: r.id,
  createdAt: r.createdAt!,
  organizationId: r.organizationId,
  subscriptionId: r.subscriptionId,
  eventName: r.eventName,
  body: r.body,
  attempts: 0,
  firstAttemptAt: null,
  leaseToken: r.leaseToken!,
  destinationUrl: `${ORIGIN}/hook`,
  destinationOrigin: ORIGIN,
  secretSealed: 'x',
  previousSecretSealed: null,
  previousSecretUntil: null,
  traceparent: null,
});

async function recordAll(stores: Stores, items: AttemptRecord[]) {
  for (let i = 0; i < items.length; i += RECORD) await stores.attempts.recordAttempts(items.slice(i, i + RECORD));
}

await lifecycle('claimed', async (_db, stores, rows) => {
  await stores.deliveryQueue.insertMany(rows());
  for (;;) {
    const { deliveries } = await stores.deliveryQueue.claim({
      limit: CLAIM,
      leaseMs: 60_000,
      defaultCap: CLAIM,
      caps: new Map(),
    });
    if (!deliveries.length) break;
    await stores.attempts.recordAttempts(deliveries.map(succeeded));
  }
});

await lifecycle('handed off', async (_db, stores, rows) => {
  const batch = rows().map((r) => ({ ...r, leaseToken: randomUUID() }));
  await stores.deliveryQueue.insertMany(batch, { leaseMs: 60_000 });
  await recordAll(
    stores,
    batch.map((r) => succeeded(claimed(r))),
  );
});

if (process.env.BENCH_DIRECT !== '0') {
  await lifecycle('first attempt, then row', async (db, _stores, rows) => {
    const batch = rows();
    for (let i = 0; i < batch.length; i += RECORD) {
      const part = batch.slice(i, i + RECORD);
      const col = <T>(f: (r: NewDelivery) => T) => part.map(f);
      const now = new Date();
      await db.raw(
        `WITH ins AS (
           INSERT INTO delivery.deliveries (id, "organizationId", "subscriptionId", "eventId", "eventName", body, status, attempts,
                                            "responseCode", "responseBody", "durationMs", "firstAttemptAt", "lastAttemptAt")
           SELECT i.id, i.org, i.sub, i.event, i.name, i.body, 'succeeded', 1, 200, 'ok', 3, ?::timestamptz, ?::timestamptz
             FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[], ?::text[], ?::text[]) AS i(id, org, sub, event, name, body)
           ON CONFLICT (id, "createdAt") DO NOTHING
           RETURNING id, "createdAt"
         )
         INSERT INTO delivery.attempts ("deliveryId", "deliveryCreatedAt", attempt, outcome, "responseCode", "responseBody", "durationMs", "attemptedAt")
         SELECT id, "createdAt", 1, 'succeeded', 200, 'ok', 3, ?::timestamptz FROM ins`,
        [
          now,
          now,
          col((r) => r.id),
          col((r) => r.organizationId),
          col((r) => r.subscriptionId),
          col((r) => r.eventId),
          col((r) => r.eventName),
          col((r) => r.body),
          now,
        ] as Knex.RawBinding[],
      );
    }
  });
}
process.exit(0);
