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
  /** Attempts a receiver answered with Retry-After (each paused the subscription), and the pauses asked for, in ms. */
  pauses: { count: number; ms: number };
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

/** How many of a group came before each inner edge of the buckets (`b0`, `b1`, ...), and in all (`n`). */
type EdgeCounts = { n: number } & Record<`b${number}`, number>;

/** The attempt figures of a subscription's statistics, as the statement returns them: per duration. */
type AttemptCounts = EdgeCounts & {
  ms: number | null;
  n: number;
  succeeded: number;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  pauses: number;
  pausedMs: number;
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
   * percentiles by the bucket they were made in (from a histogram of durations per bucket). A record
   * stamped after the last edge (ahead of the clock) counts in the last bucket.
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
      // The buckets' inner edges: bucket i holds since + i * bucketMs up to the next edge (the last, all after).
      // Counted as one FILTER column per edge (how many came before it) in a statement grouped by a column
      // of few values (status, duration), so Postgres plans it as the window's plain aggregate (in parallel
      // where it pays); grouped by a bucket expression instead, it expected a group per row and did not.
      const edges = Array.from({ length: cut.buckets - 1 }, (_, i) => new Date(since.getTime() + (i + 1) * cut.bucketMs));
      const before = (column: string) => edges.map((_, i) => `count(*) FILTER (WHERE ${column} < ?)::int AS "b${i}"`).join(', ');
      const perBucket = (r: EdgeCounts): number[] => {
        const cumulative = [...edges.map((_, i) => r[`b${i}`]), r.n];
        return cumulative.map((c, i) => c - (i ? cumulative[i - 1] : 0));
      };
      const byStatusRows = await deliveries()
        .where({ subscriptionId, test: false })
        .where('createdAt', '>=', since)
        .groupBy('status')
        .select<(EdgeCounts & { status: string })[]>(
          db.raw(`status, count(*)::int AS n${edges.length ? `, ${before('"createdAt"')}` : ''}`, edges),
        );
      // The attempts as a histogram: how many of each duration per bucket; the percentiles are read off it
      // below, exactly as percentile_disc would, without sorting the window's attempts.
      const { rows } = await db.raw<QueryResult<AttemptCounts>>(
        `SELECT a."durationMs" AS ms, count(*)::int AS n,
                count(*) FILTER (WHERE a.outcome = 'succeeded')::int AS succeeded,
                max(a."attemptedAt") FILTER (WHERE a.outcome = 'succeeded') AS "lastSuccessAt",
                max(a."attemptedAt") FILTER (WHERE a.outcome <> 'succeeded') AS "lastFailureAt",
                count(a."pausedMs")::int AS pauses, COALESCE(sum(a."pausedMs"), 0)::float8 AS "pausedMs"
                ${edges.length ? `, ${before('a."attemptedAt"')}` : ''}
           FROM delivery.deliveries d
           JOIN delivery.attempts a ON a."deliveryId" = d.id AND a."deliveryCreatedAt" = d."createdAt"
          -- The window bounds both partition keys (migration 018): only the window's days are read.
          WHERE d."subscriptionId" = ? AND NOT d.test AND d."createdAt" >= ? AND a."deliveryCreatedAt" >= ? AND a."attemptedAt" >= ?
          GROUP BY a."durationMs"`,
        [...edges, subscriptionId, createdAfter, createdAfter, since],
      );
      const series: StatsBucket[] = Array.from({ length: cut.buckets }, () => ({ byStatus: {}, p50: null, p99: null }));
      const byStatus: Record<string, number> = {};
      for (const r of byStatusRows) {
        byStatus[r.status] = r.n;
        perBucket(r).forEach((n, i) => {
          if (n) series[i].byStatus[r.status] = n;
        });
      }
      const later = (x: Date | null, y: Date | null) => (x === null || (y !== null && y > x) ? y : x);
      const a = {
        total: 0,
        succeeded: 0,
        lastSuccessAt: null as Date | null,
        lastFailureAt: null as Date | null,
        pauses: 0,
        pausedMs: 0,
      };
      const whole = new Map<number, number>();
      const histograms = series.map(() => new Map<number, number>());
      for (const r of rows) {
        a.total += r.n;
        a.succeeded += r.succeeded;
        a.lastSuccessAt = later(a.lastSuccessAt, r.lastSuccessAt);
        a.lastFailureAt = later(a.lastFailureAt, r.lastFailureAt);
        a.pauses += r.pauses;
        a.pausedMs += r.pausedMs;
        if (r.ms === null) continue;
        whole.set(r.ms, r.n);
        perBucket(r).forEach((n, i) => {
          if (n) histograms[i].set(r.ms!, n);
        });
      }
      histograms.forEach((histogram, i) => {
        const [p50, p99] = percentilesDisc(histogram, [0.5, 0.99]);
        Object.assign(series[i], { p50, p99 });
      });
      const [p50, p95, p99] = percentilesDisc(whole, [0.5, 0.95, 0.99]);
      return {
        byStatus,
        attempts: { total: a.total, succeeded: a.succeeded, failed: a.total - a.succeeded, p50, p95, p99 },
        lastSuccessAt: a.lastSuccessAt,
        lastFailureAt: a.lastFailureAt,
        pauses: { count: a.pauses, ms: a.pausedMs },
        series,
      };
    },
  };
}
