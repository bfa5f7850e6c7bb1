// The sender's hot statements on a kept delivery log: the claim of 16 due rows, the claim and the record of their
// 16 attempts in one batch, and a claim of 4 with their attempts recorded one by one (the dead-letter and
// test-call path). For comparing two versions of the delivery stores on the same rows, alternately.
//
//   BENCH_KEEP=1 ... node --import tsx bench/delivery-partitions.ts      # prints "kept postgres://..."
//   BENCH_DATABASE_URL=<that url> node --conditions=@cluster/source --import tsx bench/delivery-claim-record.ts
//   # another version: git checkout <rev> -- services/delivery/src, run again, git checkout HEAD -- services/delivery/src
//
// BENCH_RUNS (21) timed runs of each after one untimed; prints the median and the 10th percentile in ms, and the
// buffers the database touched per run (pg_stat_database, which also counts autovacuum's: let it finish first).
// The rows it claims get a retry in an hour; before each run, the last day's attempted rows are made due again.
import { createDb } from '@cluster/db';
import { createStores } from '../services/delivery/src/stores.ts';
import { timedRuns } from './support/timed-runs.ts';
import type { AttemptRecord } from '../services/delivery/src/features/attempts/store.ts';
import type { ClaimedDelivery } from '../services/delivery/src/features/deliveries/queue-store.ts';

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('BENCH_DATABASE_URL: a database kept by bench/delivery-partitions.ts (BENCH_KEEP=1)');
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const db = createDb(url, { schema: 'delivery', poolMax: 1 });
const stores = createStores(db);
const claimArgs = { limit: 16, leaseMs: 60_000, defaultCap: 48, caps: new Map<string, number>() };
const retry = (d: ClaimedDelivery): AttemptRecord => ({
  delivery: d,
  result: { ok: false, responseCode: 503, responseBody: 'busy', error: null, durationMs: 12 },
  attemptedAt: new Date(),
  decision: { kind: 'retry', at: new Date(Date.now() + 3_600_000) },
});

async function buffers(): Promise<number> {
  // One connection (poolMax 1), whose counts reach pg_stat_database when it goes idle after this.
  await db.raw('SELECT pg_stat_force_next_flush()');
  await new Promise((r) => setTimeout(r, 200));
  const { rows } = await db.raw<{ rows: { n: string }[] }>(
    'SELECT blks_hit + blks_read AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0].n);
}

async function timed(label: string, run: () => Promise<unknown>, after?: () => Promise<unknown>) {
  await run();
  await after?.();
  const before = await buffers();
  // (timedRuns runs once more untimed first: counted in the buffers, hence RUNS + 1 below.)
  const times = await timedRuns(RUNS, run, after);
  const touched = ((await buffers()) - before) / (RUNS + 1);
  const at = (q: number) => times[Math.floor(times.length * q)].toFixed(2);
  console.log(`| ${label} | ${at(0.5)} | ${at(0.1)} | ${touched.toFixed(0)} |`);
}

try {
  await db.raw(
    `UPDATE delivery.deliveries SET "nextAttemptAt" = now() - interval '1 second', "lockedUntil" = NULL, "leaseToken" = NULL
      WHERE "lastAttemptAt" IS NOT NULL AND "createdAt" > now() - interval '1 day'`,
  );
  console.log('| statement | median ms | p10 ms | buffers per run |\n|---|---|---|---|');
  let claimed: ClaimedDelivery[] = [];
  await timed(
    'claim of 16 (and its release, untimed)',
    async () => (claimed = (await stores.deliveryQueue.claim(claimArgs)).deliveries),
    () => stores.deliveryQueue.release(claimed),
  );
  await timed('claim of 16 + record of their attempts in one batch', async () => {
    const { deliveries } = await stores.deliveryQueue.claim(claimArgs);
    const recorded = await stores.attempts.recordAttempts(deliveries.map(retry));
    if (recorded.size !== 16) throw new Error(`recorded ${recorded.size} of ${deliveries.length}`);
  });
  await timed('claim of 4 + record of each attempt alone', async () => {
    const { deliveries } = await stores.deliveryQueue.claim({ ...claimArgs, limit: 4 });
    for (const d of deliveries) if (!(await stores.attempts.recordAttempt(retry(d)))) throw new Error('a record lost its lease');
  });
} finally {
  await db.destroy();
}
