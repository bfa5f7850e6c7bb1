// Cost of the delivery search and the undelivered summary against a large delivery log (issue 41, item 5).
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 node --import tsx bench/webhook-search.ts
//
// Seeds BENCH_DELIVERIES delivery records (default 1,000,000) over 30 days (the retention period) for
// one organization's BENCH_SUBSCRIPTIONS subscriptions (default 100), 95% succeeded, 4% failed, 1%
// dead-lettered, plus 2,000 pending; then times the store's statements as the API runs them (median of
// BENCH_RUNS). BENCH_MIGRATIONS=n seeds after the first n migrations, times, then runs the others on
// the seeded table and times again (with and without an index). The plans: Postgres's auto_explain
// (BENCH_EXPLAIN=1 logs each statement's plan, with its timing, in the server's log).
import { randomUUID } from 'node:crypto';
import { createDb, ensureDatabase, migrate } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl } from '../test/support/cluster.ts';
import { migrations } from '../services/delivery/src/migrations/index.ts';
import type { DeliverySearch } from '../services/delivery/src/features/deliveries/read-store.ts';
import { createStores } from '../services/delivery/src/stores.ts';
import { seedSubscriptions } from './support/subscriptions.ts';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 1_000_000);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MIGRATIONS = Number(process.env.BENCH_MIGRATIONS ?? migrations.length);

const url = freshDatabaseUrl('search');
await ensureDatabase(url);
const db = createDb(url, { schema: 'delivery', poolMax: 2 });
try {
  await migrate(db, 'delivery', migrations.slice(0, MIGRATIONS));
  const org = randomUUID();
  const subs = await seedSubscriptions(db, org, SUBSCRIPTIONS);
  // The days the seed covers get their daily partitions (migration 018), as a service running then would have made them.
  if ((await db.raw<{ rows: { t: string | null }[] }>("SELECT to_regclass('delivery.deliveries_default') AS t")).rows[0].t)
    await createStores(db).deliveryRetention.ensurePartitions(new Date(Date.now() - 31 * 86_400_000), 31);
  const seeded = Date.now();
  // Subscription 0 gets a fifth of the records; the rest share the others evenly.
  await db.raw(
    `INSERT INTO delivery.deliveries (id, "organizationId", "subscriptionId", "eventId", "eventName", body, status, attempts, "createdAt", "updatedAt")
     SELECT gen_random_uuid(), ?::uuid,
            (?::uuid[])[CASE WHEN g % 5 = 0 THEN 1 ELSE 2 + (g % (? - 1)) END],
            gen_random_uuid(), CASE WHEN g % 3 = 0 THEN 'entry.updated' ELSE 'entry.created' END, '{"padding":"${'x'.repeat(400)}"}',
            CASE WHEN g <= 2000 THEN 'pending' WHEN g % 100 < 95 THEN 'succeeded' WHEN g % 100 < 99 THEN 'failed' ELSE 'dead_letter' END,
            CASE WHEN g <= 2000 THEN 0 WHEN g % 100 < 80 THEN 1 ELSE 2 END,
            now() - (g::float / ? * interval '30 days'), now()
       FROM generate_series(1, ?) AS g`,
    [org, subs, SUBSCRIPTIONS, DELIVERIES, DELIVERIES],
  );
  await db.raw('VACUUM ANALYZE delivery.deliveries');
  if (process.env.BENCH_EXPLAIN) {
    await db.raw(`LOAD 'auto_explain'`).catch(() => {});
    await db.raw(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET session_preload_libraries = 'auto_explain'`);
    await db.raw(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET auto_explain.log_min_duration = 0`);
    await db.raw(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET auto_explain.log_analyze = on`);
  }
  console.log(
    `seeded ${DELIVERIES} deliveries over ${SUBSCRIPTIONS} subscriptions in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
  );

  // A pool of its own, whose connections take the database's settings (auto_explain).
  const reader = createDb(url, { schema: 'delivery', poolMax: 2 });
  const stores = createStores(reader);
  const hour = 3_600_000;
  const ago = (ms: number) => new Date(Date.now() - ms);
  const cases: [string, () => Promise<unknown>][] = [];
  const search = (label: string, filter: DeliverySearch, page = 1) =>
    cases.push([label, () => stores.deliveryReads.list(org, filter, { page, pageSize: 25 })]);
  search('search, no filter, page 1', {});
  search('search, no filter, page 2', {}, 2);
  search('search, status=failed, page 1', { status: 'failed' });
  search('search, status=failed, page 2', { status: 'failed' }, 2);
  search('search, status=dead_letter, last 24h', { status: 'dead_letter', since: ago(24 * hour) });
  search('search, status=succeeded, page 2', { status: 'succeeded' }, 2);
  search('search, eventName, last hour, page 2', { eventName: 'entry.updated', since: ago(hour) }, 2);
  search('search, busy subscription, status=failed, page 2', { subscriptionId: subs[0], status: 'failed' }, 2);
  cases.push(['summary, whole retention', () => stores.deliveryReads.undelivered(org, {})]);
  cases.push(['summary, last 24h', () => stores.deliveryReads.undelivered(org, { since: ago(24 * hour) })]);
  cases.push(['summary, busy subscription', () => stores.deliveryReads.undelivered(org, { subscriptionId: subs[0] })]);

  const time = async (title: string) => {
    console.log(`\n${title}\n\n| statement | median ms |\n|---|---|`);
    for (const [label, run] of cases) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = process.hrtime.bigint();
        await run();
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      times.sort((a, b) => a - b);
      console.log(`| ${label} | ${times[Math.floor(times.length / 2)].toFixed(1)} |`);
    }
  };
  await time(`with ${migrations[MIGRATIONS - 1].name}`);
  if (MIGRATIONS < migrations.length) {
    const t = Date.now();
    await migrate(db, 'delivery', migrations);
    await db.raw('ANALYZE delivery.deliveries');
    console.log(`\nmigrated to ${migrations.at(-1)?.name} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    await time(`with ${migrations.at(-1)?.name}`);
  }
  await reader.destroy();
} finally {
  await db.destroy();
  await dropDatabase(url);
}
