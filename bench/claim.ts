// Cost of one claim of due deliveries against a backlog (the sender's refill query).
//
//   TEST_DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54329/postgres KAFKA_BROKERS=127.0.0.1:19092 node --import tsx bench/claim.ts
//
// Seeds BENCH_BACKLOG due deliveries over BENCH_ORIGINS destination origins, then claims
// the way a refilling sender does (room for BENCH_LIMIT in all, BENCH_CAP more for the
// origin it is sending to) until the backlog is gone, and prints ms per claim and per row.
// BENCH_RATE_LIMIT / BENCH_MAX_IN_FLIGHT give every subscription those limits (docs/webhooks.md,
// "Throttling"), to measure the claim and record of throttled subscriptions (the default: none).
import { randomUUID } from 'node:crypto';
import { createDb, ensureDatabase, migrate } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl } from '../test/support/cluster.ts';
import { migrations } from '../services/delivery/src/migrations/index.ts';
import { seedSubscriptions } from './support/subscriptions.ts';
import { createStores } from '../services/delivery/src/stores.ts';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 20000);
const ORIGINS = Number(process.env.BENCH_ORIGINS ?? 1);
const LIMIT = Number(process.env.BENCH_LIMIT ?? 160);
const CAP = Number(process.env.BENCH_CAP ?? 16);
const RATE_LIMIT = process.env.BENCH_RATE_LIMIT ? Number(process.env.BENCH_RATE_LIMIT) : null;
const MAX_IN_FLIGHT = process.env.BENCH_MAX_IN_FLIGHT ? Number(process.env.BENCH_MAX_IN_FLIGHT) : null;

const url = freshDatabaseUrl('claim');
await ensureDatabase(url);
if (process.env.BENCH_EXPLAIN) {
  // Plans of slow statements go to the server log (auto_explain).
  const name = new URL(url).pathname.slice(1);
  const admin = createDb(url, { schema: 'public', poolMax: 1 });
  await admin.raw(`ALTER DATABASE "${name}" SET session_preload_libraries = 'auto_explain'`);
  await admin.raw(`ALTER DATABASE "${name}" SET auto_explain.log_min_duration = ${Number(process.env.BENCH_EXPLAIN)}`);
  await admin.raw(`ALTER DATABASE "${name}" SET auto_explain.log_analyze = on`);
  await admin.destroy();
}
const db = createDb(url, { schema: 'delivery', poolMax: 2 });
try {
  await migrate(db, 'delivery', migrations);
  const org = randomUUID();
  const subs = await seedSubscriptions(db, org, ORIGINS);
  const stores = createStores(db);
  if (RATE_LIMIT !== null || MAX_IN_FLIGHT !== null) {
    for (const id of subs) {
      await stores.subscriptions.update(id, { rateLimit: RATE_LIMIT, maxInFlight: MAX_IN_FLIGHT });
      await stores.subscriptions.syncThrottle(id, true);
    }
  }
  for (let i = 0; i < BACKLOG; i += 1000) {
    await stores.deliveryQueue.insertMany(
      Array.from({ length: Math.min(1000, BACKLOG - i) }, (_, j) => ({
        id: randomUUID(),
        organizationId: org,
        subscriptionId: subs[(i + j) % subs.length],
        eventId: randomUUID(),
        eventName: 'entry.created',
        body: JSON.stringify({ n: i + j, padding: 'x'.repeat(500) }),
      })),
    );
  }
  await db.raw('VACUUM ANALYZE delivery.deliveries');
  let claims = 0;
  let rows = 0;
  let claiming = 0;
  let recording = 0;
  const t0 = performance.now();
  for (;;) {
    const caps = new Map(Array.from({ length: ORIGINS }, (_, i) => [`http://r${i}.example.test`, CAP] as [string, number]));
    const c0 = performance.now();
    const { deliveries: claimed } = await stores.deliveryQueue.claim({
      limit: LIMIT,
      leaseMs: 60_000,
      defaultCap: CAP * 3,
      caps,
    });
    claiming += performance.now() - c0;
    if (!claimed.length) break;
    claims++;
    rows += claimed.length;
    // Recorded at once, as the sender does after a 2xx: the rows leave the due index.
    const r0 = performance.now();
    await stores.attempts.recordAttempts(
      claimed.map((delivery) => ({
        delivery,
        attemptedAt: new Date(),
        decision: { kind: 'succeeded' as const },
        result: { ok: true, responseCode: 200, responseBody: 'ok', error: null, durationMs: 3 },
      })),
    );
    recording += performance.now() - r0;
  }
  const ms = performance.now() - t0;
  console.log(
    `${BACKLOG} due deliveries over ${ORIGINS} origin(s)${RATE_LIMIT !== null || MAX_IN_FLIGHT !== null ? ` (rateLimit ${RATE_LIMIT}, maxInFlight ${MAX_IN_FLIGHT})` : ''}: ${claims} claims took ${ms.toFixed(0)} ms (claim, then record the attempts as the sender does)`,
  );
  console.log(
    `  claims: ${(claiming / claims).toFixed(2)} ms per claim of ${(rows / claims).toFixed(1)} rows, ${((claiming / rows) * 1000).toFixed(0)} us per delivery`,
  );
  console.log(
    `  records: ${(recording / claims).toFixed(2)} ms per batch, ${((recording / rows) * 1000).toFixed(0)} us per delivery`,
  );
} finally {
  await db.destroy();
  if (!process.env.BENCH_KEEP) await dropDatabase(url);
  else console.log(`kept ${url}`);
}
process.exit(0);
