import { DELIVERY_FIELDS, UNDELIVERED_STATUSES } from '@cluster/contracts';
import { isUuid, paginate, type Knex } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import type { QueryResult } from 'pg';
import type { DeliveryRecord, DeliveryRow } from './rows.ts';

/** What GET /webhooks/:id/stats is computed from. */
export interface DeliveryStats {
  byStatus: Record<string, number>;
  attempts: { total: number; succeeded: number; failed: number; p50: number | null; p95: number | null };
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  /** Attempts a receiver answered with Retry-After (each paused the subscription), and the pauses asked for, in ms. */
  pauses: { count: number; ms: number };
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

/** The attempt figures of a subscription's statistics, as the statement returns them. */
type AttemptFigures = {
  total: number;
  succeeded: number;
  p50: number | null;
  p95: number | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  pauses: number;
  pausedMs: number;
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
   * A subscription's statistics (test deliveries excluded): its deliveries created since `since` by
   * status, and its attempts made since `since` (of deliveries created after `createdAfter`, which
   * bounds the scan: a retry comes at most the retry period after its delivery was created).
   * p50/p95: percentile_disc of the attempts' durations (a duration that occurred).
   */
  stats(subscriptionId: string, since: Date, createdAfter: Date): Promise<DeliveryStats>;
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

    async stats(subscriptionId, since, createdAfter) {
      const byStatus = await deliveries()
        .where({ subscriptionId, test: false })
        .where('createdAt', '>=', since)
        .groupBy('status')
        .select<{ status: string; n: number }[]>('status', db.raw('count(*)::int AS n'));
      const {
        rows: [a],
      } = await db.raw<QueryResult<AttemptFigures>>(
        `SELECT count(*)::int AS total,
                count(*) FILTER (WHERE a.outcome = 'succeeded')::int AS succeeded,
                percentile_disc(0.5) WITHIN GROUP (ORDER BY a."durationMs") AS p50,
                percentile_disc(0.95) WITHIN GROUP (ORDER BY a."durationMs") AS p95,
                max(a."attemptedAt") FILTER (WHERE a.outcome = 'succeeded') AS "lastSuccessAt",
                max(a."attemptedAt") FILTER (WHERE a.outcome <> 'succeeded') AS "lastFailureAt",
                count(a."pausedMs")::int AS pauses, COALESCE(sum(a."pausedMs"), 0)::float8 AS "pausedMs"
           FROM delivery.deliveries d JOIN delivery.attempts a ON a."deliveryId" = d.id
          WHERE d."subscriptionId" = ? AND NOT d.test AND d."createdAt" >= ? AND a."attemptedAt" >= ?`,
        [subscriptionId, createdAfter, since],
      );
      return {
        byStatus: Object.fromEntries(byStatus.map((r) => [r.status, r.n])),
        attempts: { total: a.total, succeeded: a.succeeded, failed: a.total - a.succeeded, p50: a.p50, p95: a.p95 },
        lastSuccessAt: a.lastSuccessAt,
        lastFailureAt: a.lastFailureAt,
        pauses: { count: a.pauses, ms: a.pausedMs },
      };
    },
  };
}
