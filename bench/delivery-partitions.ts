// The delivery log before and after its partitioning by day (migration 018; docs/decisions-webhooks.md,
// "Partitioned delivery log"), at BENCH_ROWS delivery records (default 10,000,000).
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 node --import tsx bench/delivery-partitions.ts
//
// Migrates a fresh database to 017 (one table), seeds BENCH_ROWS deliveries over BENCH_DAYS days (default 30) in
// Postgres (INSERT ... SELECT generate_series, a million rows a statement) with 1.2 attempts each on average, over
// BENCH_SUBSCRIPTIONS subscriptions (default 100) of which the "busy" one holds a fifth; 2,000 of the newest
// are due. Then times, median of BENCH_RUNS (default 5) after one untimed run: the sender's claim of 16 rows
// and the record of their attempts, the delivery log's page, a delivery and its attempts, the organization's
// search, the busy subscription's statistics, and the retention of the oldest whole week (the old sweep: batches
// of 1,000 per subscription). Then migrates to 018 (timed: the conversion of the populated tables), times the
// same, and the retention of the next week by dropping its partition. Prints a markdown table.
// BENCH_KEEP=1 keeps the database. BENCH_BEFORE_STORES: the path of services/delivery/src/stores.ts in a checkout before migration 018 (the
// "before" column's statements; without it that column has the old sweep's figures only).
import { randomUUID } from 'node:crypto';
import { STATS_BUCKETS } from '@cluster/contracts';
import { createDb, ensureDatabase, migrate, type Knex } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl } from '../test/support/cluster.ts';
import { migrations } from '../services/delivery/src/migrations/index.ts';
import { seedSubscriptions } from './support/subscriptions.ts';
import { timedRuns } from './support/timed-runs.ts';
import { createStores } from '../services/delivery/src/stores.ts';
import { MAX_KEPT_PER_PARTITION } from '../services/delivery/src/features/deliveries/retention.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CHUNK = 1_000_000;
const DAY = 86_400_000;
const BEFORE = migrations.findIndex((m) => m.name.startsWith('018-'));

const url = freshDatabaseUrl('partitions');
await ensureDatabase(url);
const db = createDb(url, { schema: 'delivery', poolMax: 2 });
const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);
const results = new Map<string, Record<string, string>>();
const record = (label: string, phase: string, value: string) => results.set(label, { ...results.get(label), [phase]: value });

async function size(): Promise<string> {
  const { rows } = await db.raw<{ rows: { bytes: string }[] }>(
    `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'delivery' AND c.relkind IN ('r', 't') AND (c.relname LIKE 'deliveries%' OR c.relname LIKE 'attempts%')`,
  );
  return `${(Number(rows[0].bytes) / 2 ** 30).toFixed(2)} GiB`;
}

async function wal(): Promise<string> {
  return (await db.raw<{ rows: { lsn: string }[] }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
}
async function walSince(lsn: string): Promise<string> {
  const { rows } = await db.raw<{ rows: { bytes: string }[] }>(
    'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn) AS bytes',
    [lsn],
  );
  return `${(Number(rows[0].bytes) / 2 ** 20).toFixed(0)} MiB`;
}

async function timed(phase: string, label: string, run: () => Promise<unknown>, after?: () => Promise<unknown>) {
  const times = await timedRuns(RUNS, run, after);
  record(label, phase, times[Math.floor(times.length / 2)].toFixed(1));
}

type MakeStores = typeof createStores;

async function measure(phase: string, org: string, subs: string[], reader: Knex, make: MakeStores, whole: boolean) {
  const stores = make(reader);
  const claimArgs = { limit: 16, leaseMs: 60_000, defaultCap: 48, caps: new Map<string, number>() };
  let claimed: Awaited<ReturnType<typeof stores.deliveryQueue.claim>>['deliveries'] = [];
  await timed(
    phase,
    'claim of 16 due rows (ms)',
    async () => {
      claimed = (await stores.deliveryQueue.claim(claimArgs)).deliveries;
    },
    () => stores.deliveryQueue.release(claimed),
  );
  if (whole)
    await timed(phase, 'claim + record of 16 attempts, retry in an hour (ms)', async () => {
      const { deliveries } = await stores.deliveryQueue.claim(claimArgs);
      await stores.attempts.recordAttempts(
        deliveries.map((d) => ({
          delivery: d,
          result: { ok: false, responseCode: 503, responseBody: 'busy', error: null, durationMs: 12 },
          attemptedAt: new Date(),
          decision: { kind: 'retry', at: new Date(Date.now() + 3_600_000) },
        })),
      );
    });
  const busy = subs[0];
  const [some] = await reader('delivery.deliveries')
    .where({ subscriptionId: subs[1] })
    .orderBy('createdAt', 'desc')
    .limit(1)
    .select<{ id: string }[]>('id');
  await timed(phase, 'a delivery and its attempts, by id (ms)', async () => {
    await stores.deliveryReads.find(org, subs[1], some.id);
    await stores.attempts.listFor(some.id);
  });
  await timed(phase, 'delivery log page 1, busy subscription (ms)', () =>
    stores.deliveryReads.list(org, { subscriptionId: busy }, { page: 1, pageSize: 25 }),
  );
  await timed(phase, 'delivery log page 1, typical subscription, last 24h (ms)', () =>
    stores.deliveryReads.list(org, { subscriptionId: subs[1], since: new Date(Date.now() - DAY) }, { page: 1, pageSize: 25 }),
  );
  await timed(phase, 'search status=failed, page 1 (ms)', () =>
    stores.deliveryReads.list(org, { status: 'failed' }, { page: 1, pageSize: 25 }),
  );
  await timed(phase, 'search status=dead_letter, last 24h (ms)', () =>
    stores.deliveryReads.list(org, { status: 'dead_letter', since: new Date(Date.now() - DAY) }, { page: 1, pageSize: 25 }),
  );
  await timed(phase, 'undelivered summary, last 24h (ms)', () =>
    stores.deliveryReads.undelivered(org, { since: new Date(Date.now() - DAY) }),
  );
  for (const [window, ms] of whole
    ? ([
        ['24h', DAY],
        ['7d', 7 * DAY],
      ] as const)
    : []) {
    const since = new Date(Date.now() - ms);
    const cut = { bucketMs: STATS_BUCKETS[window].bucketMs, buckets: ms / STATS_BUCKETS[window].bucketMs };
    // The stores before migration 019 took the window's scan bound too (the rollup's read does not).
    const stats = stores.deliveryReads.stats as (...args: unknown[]) => Promise<unknown>;
    await timed(phase, `stats of the busy subscription, ${window} (ms)`, () =>
      stats.length === 4 ? stats(busy, since, new Date(since.getTime() - DAY), cut) : stats(busy, since, cut),
    );
  }
}

try {
  await migrate(db, 'delivery', migrations.slice(0, BEFORE));
  const org = randomUUID();
  const subs = await seedSubscriptions(db, org, SUBSCRIPTIONS);
  await db('delivery.subscriptions').update({ createdAt: new Date(Date.now() - (DAYS + 1) * DAY) });
  const seeded = Date.now();
  // Row g was created g/ROWS of DAYS ago: the newest 2,000 are due now, 3% failed (a third of those of the last
  // day retrying in an hour, as retries end within WEBHOOK_RETRY_MAX_AGE_MS, and one in 10,000 older ones, as
  // a recovery would), 1% dead-lettered, the rest succeeded; 20% took two attempts. The body carries its event's time.
  for (let from = 1; from <= ROWS; from += CHUNK) {
    await db.raw(
      `INSERT INTO delivery.deliveries (id, "organizationId", "subscriptionId", "eventId", "eventName", body, status, attempts,
                                        "nextAttemptAt", "createdAt", "updatedAt")
       SELECT gen_random_uuid(), ?::uuid, (?::uuid[])[CASE WHEN g % 5 = 0 THEN 1 ELSE 2 + (g % (? - 1)) END], gen_random_uuid(),
              CASE WHEN g % 3 = 0 THEN 'entry.updated' ELSE 'entry.created' END,
              '{"id":"' || gen_random_uuid() || '","eventName":"entry.created","schemaVersion":1,"occurredAt":"'
                || to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","payload":{"padding":"${'x'.repeat(120)}"}}',
              CASE WHEN g <= 2000 THEN 'pending' WHEN g % 100 < 96 THEN 'succeeded' WHEN g % 100 < 99 THEN 'failed' ELSE 'dead_letter' END,
              CASE WHEN g <= 2000 THEN 0 WHEN g % 100 < 80 THEN 1 ELSE 2 END,
              CASE WHEN g <= 2000 THEN now() - interval '1 second' WHEN g % 100 = 96 AND (g <= ? OR g % 10000 = 96) THEN now() + interval '1 hour' END,
              t, t
         FROM generate_series(?::int, ?::int) AS g, LATERAL (SELECT now() - (g::float / ? * (? * interval '1 day')) AS t) x`,
      [org, subs, SUBSCRIPTIONS, Math.ceil(ROWS / DAYS), from, Math.min(ROWS, from + CHUNK - 1), ROWS, DAYS],
    );
    console.error(`seeded ${Math.min(ROWS, from + CHUNK - 1)} deliveries, ${seconds(seeded)} s`);
  }
  const anchor = Date.now();
  for (let from = 0; from < DAYS; from++) {
    // A day of deliveries at a time (the last window open to the past): their attempts.
    const lower = from === DAYS - 1 ? new Date(0) : new Date(anchor - (from + 1) * DAY);
    await db.raw(
      `INSERT INTO delivery.attempts ("deliveryId", attempt, outcome, "responseCode", "durationMs", "attemptedAt")
       SELECT d.id, a.n, CASE WHEN d.status = 'succeeded' AND a.n = d.attempts THEN 'succeeded' ELSE 'failed' END,
              CASE WHEN d.status = 'succeeded' AND a.n = d.attempts THEN 200 ELSE 503 END,
              (abs(hashtext(d.id::text)) % 400) + 5, d."createdAt" + (a.n - 1) * interval '5 seconds'
         FROM delivery.deliveries d CROSS JOIN LATERAL generate_series(1, d.attempts) AS a(n)
        WHERE d."createdAt" >= ? AND d."createdAt" < ?`,
      [lower, new Date(anchor - from * DAY)],
    );
  }
  await db.raw('VACUUM ANALYZE delivery.deliveries');
  await db.raw('VACUUM ANALYZE delivery.attempts');
  const [{ n: attempts }] = (await db.raw<{ rows: { n: number }[] }>('SELECT count(*)::int AS n FROM delivery.attempts')).rows;
  console.log(`seeded ${ROWS} deliveries and ${attempts} attempts over ${DAYS} days in ${seconds(seeded)} s; ${await size()}`);

  const before = migrations[BEFORE - 1].name;
  const after = migrations[BEFORE].name;
  const reader = createDb(url, { schema: 'delivery', poolMax: 2 });
  // The stores as they were at 017 (a checkout before migrations 018 and 019).
  const old = process.env.BENCH_BEFORE_STORES
    ? ((await import(process.env.BENCH_BEFORE_STORES)) as { createStores: MakeStores }).createStores
    : undefined;
  // Without them, no statement of the "before" column but the old sweep's (today's statements name the rollup of 019).
  if (old) await measure(before, org, subs, reader, old, true);

  // Retention of a whole week, as the sweep of 017 did it: per subscription, batches of 1,000, oldest first. The
  // oldest week is partial (the log starts mid-week): it goes first, untimed; then the next, whole, week is timed.
  const stores = createStores(reader);
  const { rows: oldest } = await db.raw<{ rows: { week: Date }[] }>(
    `SELECT date_trunc('week', min("createdAt"), 'UTC') AS week FROM delivery.deliveries`,
  );
  const week1 = new Date(oldest[0].week.getTime() + 7 * DAY);
  const week2 = new Date(week1.getTime() + 7 * DAY);
  const sweep = async (cut: Date) => {
    let deleted = 0;
    for (const sub of subs)
      for (let n = 1000; n === 1000; deleted += n) n = await stores.deliveryRetention.pruneFinished(sub, cut, 1000);
    return deleted;
  };
  await sweep(week1);
  const [{ n: weekRows }] = await db('delivery.deliveries')
    .where('createdAt', '>=', week1)
    .andWhere('createdAt', '<', week2)
    .count<{ n: string }[]>({ n: '*' });
  let lsn = await wal();
  let t = Date.now();
  const deleted = await sweep(week2);
  record('retention of a week (s)', before, `${seconds(t)} (${deleted} of its ${weekRows} rows deleted)`);
  record('retention of a week: WAL written', before, await walSince(lsn));
  record('tables and indexes', before, await size());

  t = Date.now();
  await migrate(db, 'delivery', migrations);
  record(`migration ${after} (s)`, after, seconds(t));
  await db.raw('VACUUM ANALYZE delivery.deliveries');
  await db.raw('VACUUM ANALYZE delivery.attempts');
  await reader.destroy();
  const reader2 = createDb(url, { schema: 'delivery', poolMax: 2 });
  // The claims above leased and recorded some of the due rows; due again for the same measure.
  await db('delivery.deliveries')
    .whereNotNull('lastAttemptAt')
    .andWhere('createdAt', '>', new Date(Date.now() - DAY))
    .update({ nextAttemptAt: new Date(Date.now() - 1000), lockedUntil: null, leaseToken: null });
  await measure(after, org, subs, reader2, createStores, true);

  // The next whole week, by dropping its partition (named by its Monday).
  const suffix = `p${week2.toISOString().slice(0, 10).replace(/-/g, '')}`;
  const { rows: counted } = await db.raw<{ rows: { n: number }[] }>(
    `SELECT count(*)::int AS n FROM delivery.deliveries_${suffix}`,
  );
  const stores2 = createStores(reader2);
  lsn = await wal();
  t = Date.now();
  const kept = await stores2.deliveryRetention.dropPartition(suffix, MAX_KEPT_PER_PARTITION);
  record(
    'retention of a week (s)',
    after,
    `${((Date.now() - t) / 1000).toFixed(3)} (partition of ${counted[0].n} rows dropped, ${kept} kept)`,
  );
  record('retention of a week: WAL written', after, await walSince(lsn));
  record('tables and indexes', after, await size());
  await reader2.destroy();

  console.log(
    `\n${ROWS} deliveries over ${DAYS} days, ${SUBSCRIPTIONS} subscriptions (the busy one a fifth), median of ${RUNS}\n`,
  );
  console.log(`| | ${before} | ${after} |\n|---|---|---|`);
  for (const [label, v] of results) console.log(`| ${label} | ${v[before] ?? ''} | ${v[after] ?? ''} |`);
} finally {
  await db.destroy();
  // BENCH_KEEP=1 leaves the database for a look at its plans (its name is printed).
  if (process.env.BENCH_KEEP) console.log(`kept ${url}`);
  else await dropDatabase(url);
}
