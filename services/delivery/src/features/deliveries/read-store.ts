import { DELIVERY_FIELDS, UNDELIVERED_STATUSES } from '@cluster/contracts';
import { isUuid, paginate, type Knex } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import type { DeliveryRecord, DeliveryRow } from './rows.ts';
import { addHistogram, bucketPercentiles } from './stats-rollup.ts';

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

/** A row of the hourly statistics rollup (migration 019, stats-rollup.ts), as read. */
type StatsRollupRow = {
  subscriptionId: string;
  hour: Date;
  pending: number;
  succeeded: number;
  failed: number;
  dead_letter: number;
  attempts: number;
  attemptsSucceeded: number;
  pauses: number;
  pausedMs: number | string;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  durations: number[];
};

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
   * A subscription's statistics (test deliveries excluded), from the hourly rollup (stats-rollup.ts): its
   * deliveries created since `since` (a whole hour) by their status now, and its attempts made since then.
   * p50/p95/p99: percentile_disc of the attempts' durations rounded down to their bucket's lower bound
   * (DURATION_BOUNDS: exact below 32 ms, at most 6.25% low above). The series: the same figures per bucket
   * of `cut` (hours of the rollup summed; bucket i starts at since + i * bucketMs). An hour stamped after the
   * last edge (ahead of the clock) counts in the last bucket.
   */
  stats(subscriptionId: string, since: Date, cut: StatsBuckets): Promise<DeliveryStats>;
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

    async stats(subscriptionId, since, cut) {
      // The rollup's hours of the window (at most 168 rows for 7 days, whatever the subscription's traffic),
      // summed per bucket of the series; an hour stamped after the last edge (ahead of the clock) counts in the last.
      const rows = await db<StatsRollupRow>('delivery.stats_hourly')
        .where({ subscriptionId })
        .where('hour', '>=', since)
        .select('hour', 'pending', 'succeeded', 'failed', 'dead_letter', 'attempts', 'attemptsSucceeded', 'pauses', 'pausedMs')
        .select('lastSuccessAt', 'lastFailureAt', 'durations');
      const series = Array.from({ length: cut.buckets }, (): { byStatus: Record<string, number>; durations: number[] } => ({
        byStatus: {},
        durations: [],
      }));
      const byStatus: Record<string, number> = {};
      const durations: number[] = [];
      const later = (x: Date | null, y: Date | null) => (x === null || (y !== null && y > x) ? y : x);
      const a = {
        total: 0,
        succeeded: 0,
        lastSuccessAt: null as Date | null,
        lastFailureAt: null as Date | null,
        pauses: 0,
        pausedMs: 0,
      };
      for (const r of rows) {
        const i = Math.min(Math.floor((new Date(r.hour).getTime() - since.getTime()) / cut.bucketMs), cut.buckets - 1);
        for (const status of ['pending', 'succeeded', 'failed', 'dead_letter'] as const) {
          const n = Number(r[status]);
          if (!n) continue;
          byStatus[status] = (byStatus[status] ?? 0) + n;
          series[i].byStatus[status] = (series[i].byStatus[status] ?? 0) + n;
        }
        a.total += Number(r.attempts);
        a.succeeded += Number(r.attemptsSucceeded);
        a.pauses += Number(r.pauses);
        a.pausedMs += Number(r.pausedMs);
        a.lastSuccessAt = later(a.lastSuccessAt, r.lastSuccessAt);
        a.lastFailureAt = later(a.lastFailureAt, r.lastFailureAt);
        addHistogram(durations, r.durations);
        addHistogram(series[i].durations, r.durations);
      }
      for (const status of Object.keys(byStatus)) if (!byStatus[status]) delete byStatus[status];
      const [p50, p95, p99] = bucketPercentiles(durations, [0.5, 0.95, 0.99]);
      return {
        byStatus,
        attempts: { total: a.total, succeeded: a.succeeded, failed: a.total - a.succeeded, p50, p95, p99 },
        lastSuccessAt: a.lastSuccessAt,
        lastFailureAt: a.lastFailureAt,
        pauses: { count: a.pauses, ms: a.pausedMs },
        series: series.map((b) => {
          const [bp50, bp99] = bucketPercentiles(b.durations, [0.5, 0.99]);
          for (const status of Object.keys(b.byStatus)) if (!b.byStatus[status]) delete b.byStatus[status];
          return { byStatus: b.byStatus, p50: bp50, p99: bp99 };
        }),
      };
    },
  };
}
