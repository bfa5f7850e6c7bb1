import { DELIVERY_FIELDS } from '@cluster/contracts';
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
}

/** The attempt figures of a subscription's statistics, as the statement returns them. */
type AttemptFigures = {
  total: number;
  succeeded: number;
  p50: number | null;
  p95: number | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
};

/** The API's read model of deliveries in Postgres: records of a subscription, and its statistics. */
export interface DeliveryReadStore {
  /** One page of a subscription's delivery records, optionally of one status (newest first). */
  list(
    organizationId: string,
    subscriptionId: string,
    filter: { status?: string },
    page: PageArgs,
  ): Promise<Page<DeliveryRecord>>;
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

/** The knex implementation of DeliveryReadStore. */
export function createDeliveryReadStore(db: Knex): DeliveryReadStore {
  const deliveries = () => db<DeliveryRow>('delivery.deliveries');
  return {
    list(organizationId, subscriptionId, filter, page) {
      const q = deliveries().where({ subscriptionId, organizationId });
      if (filter.status !== undefined) q.andWhere({ status: filter.status as DeliveryRow['status'] });
      return paginate<DeliveryRecord>(q.select(DELIVERY_FIELDS), page);
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
                max(a."attemptedAt") FILTER (WHERE a.outcome <> 'succeeded') AS "lastFailureAt"
           FROM delivery.deliveries d JOIN delivery.attempts a ON a."deliveryId" = d.id
          WHERE d."subscriptionId" = ? AND NOT d.test AND d."createdAt" >= ? AND a."attemptedAt" >= ?`,
        [subscriptionId, createdAfter, since],
      );
      return {
        byStatus: Object.fromEntries(byStatus.map((r) => [r.status, r.n])),
        attempts: { total: a.total, succeeded: a.succeeded, failed: a.total - a.succeeded, p50: a.p50, p95: a.p95 },
        lastSuccessAt: a.lastSuccessAt,
        lastFailureAt: a.lastFailureAt,
      };
    },
  };
}
