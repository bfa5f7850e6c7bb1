import type { Knex } from '@cluster/db';

/**
 * The hourly statistics rollup (migration 019, docs/decisions-webhooks.md "Statistics from an hourly rollup"):
 * one row of `delivery.stats_hourly` per subscription and hour holds
 *
 * - the deliveries created in that hour (test deliveries excluded) by their status now: `pending`,
 *   `succeeded`, `failed`, `dead_letter`, moved by every statement that sets a delivery's status (the fan-out's
 *   insert, the attempt statements, the stop of a disabled subscription's retries, the claim's stop of orphans);
 * - the attempts made in that hour (of those deliveries): `attempts`, `attemptsSucceeded`, `pauses`,
 *   `pausedMs`, `lastSuccessAt`, `lastFailureAt`, and `durations`, a histogram of their durations over the
 *   fixed buckets of DURATION_BOUNDS (position i + 1 counts the durations of bucket i; trailing empty buckets
 *   are left out, so the array is as long as its highest bucket used).
 *
 * Each writer adds its deltas in the same statement as the change itself, with one upsert per statement,
 * grouped by (subscription, hour) and in that order, so two replicas' statements lock the rows they share in
 * one order. GET /webhooks/:id/stats sums at most the window's hours (168 rows for 7 days).
 */

/**
 * Lower bounds of the duration buckets, in ms: every value below 32 ms has its own bucket, and each octave
 * above it (32-63, 64-127, ... up to 2^17) is cut into 16 buckets of equal width, so a bucket's width is at
 * most 1/16 of its lower bound; the last bucket holds everything from 126,976 ms on. A percentile read off
 * the histogram is the exact one rounded down to its bucket's lower bound: exact below 32 ms, otherwise at
 * most 6.25% below it. Never change this list: the stored histograms are counted over it (a new layout needs
 * a new column and a backfill).
 */
export const DURATION_BOUNDS: readonly number[] = (() => {
  const bounds = Array.from({ length: 32 }, (_, i) => i);
  for (let e = 5; e <= 16; e++) for (let k = 0; k < 16; k++) bounds.push(2 ** e + k * 2 ** (e - 4));
  return Object.freeze(bounds);
})();

/** The bounds as a Postgres array literal, for width_bucket() (which gives the 1-based bucket of a value). */
const BOUNDS_SQL = `'{${DURATION_BOUNDS.join(',')}}'::int[]`;

/** The 1-based position in a `durations` histogram of a duration (SQL): width_bucket over DURATION_BOUNDS. */
export const DURATION_BUCKET = (ms: string) => `width_bucket(GREATEST(${ms}, 0), ${BOUNDS_SQL})`;

/** The 0-based bucket of a duration in ms (as DURATION_BUCKET, minus one). */
export function durationBucket(ms: number): number {
  let lo = 0;
  let hi = DURATION_BOUNDS.length - 1;
  const v = Math.max(0, ms);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (DURATION_BOUNDS[mid] <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * percentile_disc(p) of a bucketed histogram (counts by 0-based bucket), as the lower bound of the bucket
 * it falls in; null when the histogram is empty.
 */
export function bucketPercentiles(counts: readonly number[], ps: readonly number[]): (number | null)[] {
  const total = counts.reduce((sum, n) => sum + (n ?? 0), 0);
  return ps.map((p) => {
    if (!total) return null;
    const rank = Math.max(1, Math.ceil(p * total));
    let seen = 0;
    for (let i = 0; i < counts.length; i++) {
      seen += counts[i] ?? 0;
      if (seen >= rank) return DURATION_BOUNDS[i];
    }
    return DURATION_BOUNDS[counts.length - 1];
  });
}

/** Adds histogram `b` into `a` (element-wise, `a` grows as needed). */
export function addHistogram(a: number[], b: readonly (number | null)[]): number[] {
  b.forEach((n, i) => {
    a[i] = (a[i] ?? 0) + (n ?? 0);
  });
  return a;
}

/**
 * The status columns of a delta row for a delivery whose status went from `before` (null: it is new) to
 * `after` (SQL expressions): -1 in the old status, +1 in the new.
 */
export const STATUS_DELTA = (before: string, after: string) =>
  ['pending', 'succeeded', 'failed', 'dead_letter']
    .map(
      (s) => `((${after})::text IS NOT DISTINCT FROM '${s}')::int - ((${before})::text IS NOT DISTINCT FROM '${s}')::int AS ${s}`,
    )
    .join(', ');

/** The attempt columns of a delta row that carries no attempt. */
export const NO_ATTEMPT =
  '0 AS attempts, 0 AS "attemptsSucceeded", 0 AS pauses, 0::bigint AS "pausedMs", NULL::timestamptz AS "lastSuccessAt", NULL::timestamptz AS "lastFailureAt", NULL::int AS bucket';

/** The status columns of a delta row that moves no delivery. */
export const NO_STATUS = '0 AS pending, 0 AS succeeded, 0 AS failed, 0 AS dead_letter';

/**
 * The attempt columns of a delta row for one attempt (SQL expressions): whether it succeeded, the pause its
 * receiver asked for in ms (null: none), when it was made and how long it took.
 */
export const ATTEMPT_DELTA = (ok: string, pausedMs: string, at: string, ms: string) =>
  `1 AS attempts, (${ok})::int AS "attemptsSucceeded", (${pausedMs} IS NOT NULL)::int AS pauses,
   COALESCE(${pausedMs}, 0)::bigint AS "pausedMs",
   CASE WHEN ${ok} THEN ${at} END AS "lastSuccessAt", CASE WHEN ${ok} THEN NULL ELSE ${at} END AS "lastFailureAt",
   ${DURATION_BUCKET(ms)} AS bucket`;

/**
 * The upsert of a statement's deltas into the rollup: `deltas` is a relation (a CTE name or a parenthesised
 * query) of rows (sub, hour, pending, succeeded, failed, dead_letter, attempts, "attemptsSucceeded", pauses,
 * "pausedMs", "lastSuccessAt", "lastFailureAt", bucket), summed per (sub, hour) and written in that order (rows
 * two statements share are locked in one order: no deadlock between them). `after`: a condition evaluated
 * once before any row is written, whose sub-queries make the statement's other steps run first (their locks
 * on subscriptions and throttles are then taken before the rollup's, as in every other statement).
 */
export const ROLLUP_UPSERT = (deltas: string, after = '') => `
  INSERT INTO delivery.stats_hourly AS r
         ("subscriptionId", hour, pending, succeeded, failed, dead_letter, attempts, "attemptsSucceeded", pauses, "pausedMs",
          "lastSuccessAt", "lastFailureAt", durations)
  SELECT x.sub, x.hour, sum(x.pending), sum(x.succeeded), sum(x.failed), sum(x.dead_letter), sum(x.attempts),
         sum(x."attemptsSucceeded"), sum(x.pauses), sum(x."pausedMs"), max(x."lastSuccessAt"), max(x."lastFailureAt"),
         CASE WHEN count(x.bucket) = 0 THEN '{}'::int[]
              ELSE delivery.stats_histogram(array_agg(x.bucket) FILTER (WHERE x.bucket IS NOT NULL)) END
    FROM ${deltas} x
   ${after ? `WHERE ${after}` : ''}
   GROUP BY x.sub, x.hour
   ORDER BY x.sub, x.hour
  ON CONFLICT ("subscriptionId", hour) DO UPDATE
     SET pending = r.pending + EXCLUDED.pending, succeeded = r.succeeded + EXCLUDED.succeeded,
         failed = r.failed + EXCLUDED.failed, dead_letter = r.dead_letter + EXCLUDED.dead_letter,
         attempts = r.attempts + EXCLUDED.attempts, "attemptsSucceeded" = r."attemptsSucceeded" + EXCLUDED."attemptsSucceeded",
         pauses = r.pauses + EXCLUDED.pauses, "pausedMs" = r."pausedMs" + EXCLUDED."pausedMs",
         "lastSuccessAt" = GREATEST(r."lastSuccessAt", EXCLUDED."lastSuccessAt"),
         "lastFailureAt" = GREATEST(r."lastFailureAt", EXCLUDED."lastFailureAt"),
         durations = CASE WHEN cardinality(EXCLUDED.durations) = 0 THEN r.durations
                          ELSE delivery.stats_histogram_add(r.durations, EXCLUDED.durations) END`;

/** The start of the first hour a scan covers (binding: a time, or null for all). */
const FROM = `date_trunc('hour', COALESCE(?::timestamptz, '-infinity'))`;

/**
 * The deltas of a scan (SQL, bindings `from` three times and, with `oneSubscription`, the subscription id twice): the
 * rollup rows of the deliveries created since `from` and of the attempts made since `from` of deliveries created
 * up to a day before it (the retry period; a redelivery of an older one is not found). What the writers keep
 * up to date, derived from the tables: the migration's backfill, and the check that both agree.
 */
export const SCAN_DELTAS = (oneSubscription: boolean) => `(
  SELECT d."subscriptionId" AS sub, date_trunc('hour', d."createdAt") AS hour, ${STATUS_DELTA('NULL', 'd.status')}, ${NO_ATTEMPT}
    FROM delivery.deliveries d
   WHERE NOT d.test AND d."createdAt" >= ${FROM} ${oneSubscription ? 'AND d."subscriptionId" = ?' : ''}
  UNION ALL
  SELECT d."subscriptionId", date_trunc('hour', a."attemptedAt"), ${NO_STATUS},
         ${ATTEMPT_DELTA(`a.outcome = 'succeeded'`, 'a."pausedMs"', 'a."attemptedAt"', 'a."durationMs"')}
    FROM delivery.deliveries d JOIN delivery.attempts a ON a."deliveryId" = d.id
   WHERE NOT d.test AND d."createdAt" >= ${FROM} - interval '1 day' AND a."attemptedAt" >= ${FROM}
         ${oneSubscription ? 'AND d."subscriptionId" = ?' : ''})`;

/**
 * Writes the rollup of the hours since `from` again from a scan of the tables (of one subscription, or of all; `from` null: every hour):
 * the migration's backfill, and what an operator runs after a rolling upgrade (docs/runbook.md). Not for a
 * busy hour under way: a statement that commits while it runs may be counted twice or not at all.
 */
export async function rebuildStatsRollup(db: Knex, from: Date | null, subscriptionId?: string): Promise<void> {
  const one = subscriptionId !== undefined;
  await db.transaction(async (tx) => {
    await tx.raw(`DELETE FROM delivery.stats_hourly WHERE hour >= ${FROM} ${one ? 'AND "subscriptionId" = ?' : ''}`, [
      from,
      ...(one ? [subscriptionId] : []),
    ]);
    await tx.raw(ROLLUP_UPSERT(SCAN_DELTAS(one)), one ? [from, subscriptionId, from, from, subscriptionId] : [from, from, from]);
  });
}
