// Cost of GET /webhooks/:id/stats against a large delivery log (issue 15, item 7).
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 node --import tsx bench/webhook-stats.ts
//
// Seeds BENCH_DELIVERIES delivery records (default 1,000,000) over 7 days, with 1.5 attempts each
// on average, spread over BENCH_SUBSCRIPTIONS subscriptions (default 100) of which one, the "busy"
// one, holds a fifth of all records; then times the statistics of a typical and of the busy
// subscription over both windows (the store's statements, as the API runs them, with the window's
// series of hourly or daily buckets), and prints ms. Since migration 019 the statistics are read from the
// hourly rollup, which the bench builds from the seeded rows first (the migration's backfill, timed).
import { randomUUID } from 'node:crypto';
import { STATS_BUCKETS } from '@cluster/contracts';
import { createDb, ensureDatabase, migrate } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl } from '../test/support/cluster.ts';
import { migrations } from '../services/delivery/src/migrations/index.ts';
import { seedSubscriptions } from './support/subscriptions.ts';
import { createStores } from '../services/delivery/src/stores.ts';
import { rebuildStatsRollup } from '../services/delivery/src/features/deliveries/stats-rollup.ts';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 1_000_000);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const day = 86_400_000;
const hour = 3_600_000;

const url = freshDatabaseUrl('stats');
await ensureDatabase(url);
const db = createDb(url, { schema: 'delivery', poolMax: 2 });
try {
  await migrate(db, 'delivery', migrations);
  const org = randomUUID();
  const subs = await seedSubscriptions(db, org, SUBSCRIPTIONS);
  // The days the seed covers get their daily partitions (migration 018), as a service running then would have made them.
  if ((await db.raw<{ rows: { t: string | null }[] }>("SELECT to_regclass('delivery.deliveries_default') AS t")).rows[0].t)
    await createStores(db).deliveryRetention.ensurePartitions(new Date(Date.now() - 8 * 86_400_000), 8);
  const seeded = Date.now();
  // Subscription 0 gets a fifth of the records; the rest share the others evenly. Created over the
  // last 7 days; 80% succeeded at once, 15% after a failure, 4% failed (retrying), 1% dead-lettered.
  await db.raw(
    `INSERT INTO delivery.deliveries (id, "organizationId", "subscriptionId", "eventId", "eventName", body, status, attempts, "createdAt", "updatedAt")
     SELECT gen_random_uuid(), ?::uuid,
            (?::uuid[])[CASE WHEN g % 5 = 0 THEN 1 ELSE 2 + (g % (? - 1)) END],
            gen_random_uuid(), 'entry.created', '{"padding":"${'x'.repeat(400)}"}',
            CASE WHEN g % 100 < 95 THEN 'succeeded' WHEN g % 100 < 99 THEN 'failed' ELSE 'dead_letter' END,
            CASE WHEN g % 100 < 80 THEN 1 ELSE 2 END,
            now() - (g::float / ? * interval '7 days'), now()
       FROM generate_series(1, ?) AS g`,
    [org, subs, SUBSCRIPTIONS, DELIVERIES, DELIVERIES],
  );
  await db.raw(
    `INSERT INTO delivery.attempts ("deliveryId", "deliveryCreatedAt", attempt, outcome, "responseCode", "durationMs", "attemptedAt")
     SELECT d.id, d."createdAt", a.n,
            CASE WHEN d.status = 'succeeded' AND a.n = d.attempts THEN 'succeeded' ELSE 'failed' END,
            CASE WHEN d.status = 'succeeded' AND a.n = d.attempts THEN 200 ELSE 503 END,
            (abs(hashtext(d.id::text)) % 400) + 5, d."createdAt" + (a.n - 1) * interval '5 seconds'
       FROM delivery.deliveries d CROSS JOIN LATERAL generate_series(1, d.attempts) AS a(n)`,
  );
  await db.raw('VACUUM ANALYZE delivery.deliveries');
  await db.raw('VACUUM ANALYZE delivery.attempts');
  const [{ n: attempts }] = (await db.raw<{ rows: { n: number }[] }>('SELECT count(*)::int AS n FROM delivery.attempts')).rows;
  console.log(
    `seeded ${DELIVERIES} deliveries and ${attempts} attempts over ${SUBSCRIPTIONS} subscriptions in ${((Date.now() - seeded) / 1000).toFixed(1)} s`,
  );
  // The rows were written by SQL, not by the service's statements: the hourly rollup is built from them as the
  // migration's backfill builds it (its last 8 days), timed.
  const rebuilt = Date.now();
  await rebuildStatsRollup(db, new Date(Date.now() - 8 * day));
  await db.raw('VACUUM ANALYZE delivery.stats_hourly');
  const [{ n: hours }] = (await db.raw<{ rows: { n: number }[] }>('SELECT count(*)::int AS n FROM delivery.stats_hourly')).rows;
  console.log(`rollup backfill: ${hours} rows in ${((Date.now() - rebuilt) / 1000).toFixed(1)} s`);

  const stores = createStores(db);
  for (const [label, sub] of [
    ['typical subscription', subs[1]],
    ['busy subscription', subs[0]],
  ] as const) {
    for (const [window, ms] of [
      ['24h', day],
      ['7d', 7 * day],
    ] as const) {
      // The window as the API cuts it: whole hours, the current one last.
      const since = new Date(Math.floor(Date.now() / hour) * hour + hour - ms);
      const times: number[] = [];
      // The window's series as the API cuts it (24 hours, 7 days).
      const cut = { bucketMs: STATS_BUCKETS[window].bucketMs, buckets: ms / STATS_BUCKETS[window].bucketMs };
      // One untimed call first (plans, caches), then RUNS timed ones.
      let last = await stores.deliveryReads.stats(sub, since, cut);
      for (let i = 0; i < RUNS; i++) {
        const t = process.hrtime.bigint();
        last = await stores.deliveryReads.stats(sub, since, cut);
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      times.sort((a, b) => a - b);
      const total = Object.values(last.byStatus).reduce((a, b) => a + b, 0);
      console.log(
        `${label}, ${window}: ${total} deliveries, ${last.attempts.total} attempts in the window; median ${times[Math.floor(RUNS / 2)].toFixed(1)} ms, best ${times[0].toFixed(1)} ms`,
      );
    }
  }
} finally {
  await db.destroy();
  await dropDatabase(url);
}
