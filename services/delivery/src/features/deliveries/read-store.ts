import { DELIVERY_FIELDS, UNDELIVERED_STATUSES } from '@cluster/contracts';
import { isUuid, paginate, type Knex } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import type { QueryResult } from 'pg';
import type { DeliveryRecord, DeliveryRow } from './rows.ts';

/** One bucket of a subscription's statistics: its deliveries by status (created in it) and its attempts' latency (made in it). */
export interface StatsBucket {
  byStatus: Record<string, number>;
  p50: number | null;
  p99: number | null;
}

/** What GET /webhooks/:id/stats is computed from. */
export interface DeliveryStats {
  byStatus: Record<string, number>;
  attempts: { total: number; succeeded: number; failed: number; p50: number | null; p95: number | null; p99: number | null };
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  /** The window cut into `buckets` equal buckets from `since` (bucket i starts at since + i * bucketMs). */
  series: StatsBucket[];
}

/** How a window is cut into the buckets of its series. */
export interface StatsBuckets {
  bucketMs: number;
  buckets: number;
}

/**
 * What the delivery lists filter on (docs/webhooks.md, "Finding what did not arrive"): a subscription
 * (none: the organization's), a status, an event name, and a `createdAt` window, `since` included, `until` not.
 */
export interface DeliverySearch {
  subscriptionId?: string;
  status?: string;
  eventName?: string;
  since?: Date;
  until?: Date;
}

/** Undelivered deliveries of one subscription in one status: how many, and when the oldest was created. */
export interface UndeliveredCount {
  subscriptionId: string;
  status: (typeof UNDELIVERED_STATUSES)[number];
  count: number;
  oldestCreatedAt: Date;
}

/** The attempt figures of a subscription's statistics, as the statement returns them: per bucket and duration. */
type AttemptCounts = {
  bucket: number;
  ms: number | null;
  n: number;
  succeeded: number;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
};

/**
 * percentile_disc(p) of a histogram (value -> how many): the first value, in order, whose cumulative
 * count reaches ceil(p * total), as Postgres computes it (a value that occurred); null when empty.
 */
export function percentilesDisc(histogram: ReadonlyMap<number, number>, ps: readonly number[]): (number | null)[] {
  const values = [...histogram.keys()].sort((x, y) => x - y);
  const total = values.reduce((sum, v) => sum + histogram.get(v)!, 0);
  return ps.map((p) => {
    if (!total) return null;
    const rank = Math.max(1, Math.ceil(p * total));
    let seen = 0;
    for (const v of values) {
      seen += histogram.get(v)!;
      if (seen >= rank) return v;
    }
    return values.at(-1)!;
  });
}

/** A bucket's index, clamped to the series (a record stamped a little ahead of the clock counts in the last). */
const clampBucket = (bucket: number, cut: StatsBuckets) => Math.min(Math.max(bucket, 0), cut.buckets - 1);

/** The API's read model of deliveries in Postgres: records of a subscription, and its statistics. */
export interface DeliveryReadStore {
  /**
   * One page of the delivery records of the organization's live (not deleted) subscriptions that match
   * `filter`, newest first.
   */
  list(organizationId: string, filter: DeliverySearch, page: PageArgs): Promise<Page<DeliveryRecord>>;
  /**
   * The undelivered deliveries (UNDELIVERED_STATUSES, test deliveries excluded) of the organization's live
   * subscriptions that match `filter`, counted by subscription and status.
   */
  undelivered(organizationId: string, filter: Omit<DeliverySearch, 'status'>): Promise<UndeliveredCount[]>;
  /** A delivery record of the subscription, or undefined. Non-UUID ids find nothing. */
  find(organizationId: string, subscriptionId: string, id: string): Promise<DeliveryRecord | undefined>;
  /**
   * A subscription's statistics (test deliveries excluded): its deliveries created since `since` by
   * status, and its attempts made since `since` (of deliveries created after `createdAfter`, which
   * bounds the scan: a retry comes at most the retry period after its delivery was created).
   * p50/p95/p99: percentile_disc of the attempts' durations (a duration that occurred). The same two
   * statements give the series: the deliveries by the bucket they were created in, the attempts'
   * percentiles by the bucket they were made in (from one histogram of durations per bucket).
   */
  stats(subscriptionId: string, since: Date, createdAfter: Date, cut: StatsBuckets): Promise<DeliveryStats>;
}

/**
 * The predicate of the partial index `deliveries_undelivered` (migration 012), written as literals: a prepared
 * statement's generic plan cannot prove that a bound `status = $1` lies within the index, so a statement that
 * wants the index states the predicate itself.
 */
const UNDELIVERED = `status IN (${UNDELIVERED_STATUSES.map((s) => `'${s}'`).join(', ')})`;

/** The knex implementation of DeliveryReadStore. */
export function createDeliveryReadStore(db: Knex): DeliveryReadStore {
  const deliveries = () => db<DeliveryRow>('delivery.deliveries');
  // The organization's deliveries that match the filter, of subscriptions not deleted (whose records the API no longer shows).
  const matching = (organizationId: string, filter: DeliverySearch) => {
    const q = deliveries()
      .where({ organizationId })
      .whereIn('subscriptionId', db('delivery.subscriptions').select('id').where({ organizationId, deletedAt: null }));
    if (filter.subscriptionId !== undefined) q.andWhere({ subscriptionId: filter.subscriptionId });
    if (filter.status !== undefined) q.andWhere({ status: filter.status as DeliveryRow['status'] });
    if (UNDELIVERED_STATUSES.some((s) => s === filter.status)) q.andWhereRaw(UNDELIVERED);
    if (filter.eventName !== undefined) q.andWhere({ eventName: filter.eventName });
    if (filter.since !== undefined) q.andWhere('createdAt', '>=', filter.since);
    if (filter.until !== undefined) q.andWhere('createdAt', '<', filter.until);
    return q;
  };
  return {
    list(organizationId, filter, page) {
      return paginate<DeliveryRecord>(matching(organizationId, filter).select(DELIVERY_FIELDS), page);
    },

    async undelivered(organizationId, filter) {
      return matching(organizationId, filter)
        .andWhereRaw(UNDELIVERED)
        .andWhere({ test: false })
        .groupBy('subscriptionId', 'status')
        .select<UndeliveredCount[]>(
          'subscriptionId',
          'status',
          db.raw('count(*)::int AS count'),
          db.raw('min("createdAt") AS "oldestCreatedAt"'),
        );
    },

    async find(organizationId, subscriptionId, id) {
      if (!isUuid(id)) return undefined;
      return deliveries().where({ id, subscriptionId, organizationId }).first<DeliveryRecord | undefined>(DELIVERY_FIELDS);
    },

    async stats(subscriptionId, since, createdAfter, cut) {
      // The bucket of a time: whole buckets of cut.bucketMs since `since` (epoch arithmetic, no time zone).
      const bucketOf = (column: string) => `floor(extract(epoch FROM ${column} - ?::timestamptz) * 1000 / ?)::int`;
      const byBucket = await deliveries()
        .where({ subscriptionId, test: false })
        .where('createdAt', '>=', since)
        .groupBy('bucket', 'status')
        .select<{ bucket: number; status: string; n: number }[]>(
          db.raw(`${bucketOf('"createdAt"')} AS bucket`, [since, cut.bucketMs]),
          'status',
          db.raw('count(*)::int AS n'),
        );
      // The attempts as a histogram: how many of each duration per bucket, which one hash aggregate gives
      // without sorting; the percentiles are read off it below, exactly as percentile_disc would.
      const { rows } = await db.raw<QueryResult<AttemptCounts>>(
        `SELECT bucket, "durationMs" AS ms, count(*)::int AS n,
                count(*) FILTER (WHERE outcome = 'succeeded')::int AS succeeded,
                max("attemptedAt") FILTER (WHERE outcome = 'succeeded') AS "lastSuccessAt",
                max("attemptedAt") FILTER (WHERE outcome <> 'succeeded') AS "lastFailureAt"
           FROM (SELECT ${bucketOf('a."attemptedAt"')} AS bucket, a.outcome, a."durationMs", a."attemptedAt"
                   FROM delivery.deliveries d JOIN delivery.attempts a ON a."deliveryId" = d.id
                  WHERE d."subscriptionId" = ? AND NOT d.test AND d."createdAt" >= ? AND a."attemptedAt" >= ?) AS w
          GROUP BY bucket, "durationMs"`,
        [since, cut.bucketMs, subscriptionId, createdAfter, since],
      );
      const series: StatsBucket[] = Array.from({ length: cut.buckets }, () => ({ byStatus: {}, p50: null, p99: null }));
      const byStatus: Record<string, number> = {};
      for (const r of byBucket) {
        const counts = series[clampBucket(r.bucket, cut)]!.byStatus;
        counts[r.status] = (counts[r.status] ?? 0) + r.n;
        byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n;
      }
      const later = (x: Date | null, y: Date | null) => (x === null || (y !== null && y > x) ? y : x);
      const a = { total: 0, succeeded: 0, lastSuccessAt: null as Date | null, lastFailureAt: null as Date | null };
      const whole = new Map<number, number>();
      const perBucket = series.map(() => new Map<number, number>());
      for (const r of rows) {
        a.total += r.n;
        a.succeeded += r.succeeded;
        a.lastSuccessAt = later(a.lastSuccessAt, r.lastSuccessAt);
        a.lastFailureAt = later(a.lastFailureAt, r.lastFailureAt);
        if (r.ms === null) continue;
        whole.set(r.ms, (whole.get(r.ms) ?? 0) + r.n);
        const own = perBucket[clampBucket(r.bucket, cut)]!;
        own.set(r.ms, (own.get(r.ms) ?? 0) + r.n);
      }
      perBucket.forEach((histogram, i) => {
        const [p50, p99] = percentilesDisc(histogram, [0.5, 0.99]);
        Object.assign(series[i]!, { p50, p99 });
      });
      const [p50, p95, p99] = percentilesDisc(whole, [0.5, 0.95, 0.99]);
      return {
        byStatus,
        attempts: { total: a.total, succeeded: a.succeeded, failed: a.total - a.succeeded, p50, p95, p99 },
        lastSuccessAt: a.lastSuccessAt,
        lastFailureAt: a.lastFailureAt,
        series,
      };
    },
  };
}
