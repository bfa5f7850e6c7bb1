import type { Knex } from '@cluster/db';
import type { QueryResult } from 'pg';

/** Deleting finished deliveries in Postgres (the retention sweeper's, retention.ts). */
export interface DeliveryRetentionStore {
  /**
   * Deletes up to `limit` finished deliveries of one subscription created before
   * `before`, oldest first, with their attempt logs (cascade). Finished: nothing scheduled and
   * no live lease; a delivery still retrying is never deleted. The subscription's
   * (subscriptionId, createdAt) index finds them, so a sweep reads only what it deletes.
   */
  pruneFinished(subscriptionId: string, before: Date, limit: number): Promise<number>;
  /**
   * Deletes the hourly statistics rollup's hours before `cutoff` (migration 019): the statistics read no
   * further back than their longest window. The hours of deliveries deleted by `pruneFinished` stay until
   * then: the statistics of a window count its deliveries whatever the retention.
   */
  pruneStats(cutoff: Date): Promise<void>;
}

/** The knex implementation of DeliveryRetentionStore. */
export function createDeliveryRetentionStore(db: Knex): DeliveryRetentionStore {
  return {
    async pruneFinished(subscriptionId, before, limit) {
      const { rowCount } = await db.raw<QueryResult>(
        `DELETE FROM delivery.deliveries
          WHERE id = ANY(ARRAY(
            SELECT id FROM delivery.deliveries
             WHERE "subscriptionId" = ? AND "createdAt" < ?
               AND "nextAttemptAt" IS NULL AND ("lockedUntil" IS NULL OR "lockedUntil" < now())
             ORDER BY "createdAt"
             LIMIT ?))`,
        [subscriptionId, before, limit],
      );
      return rowCount ?? 0;
    },
    async pruneStats(cutoff) {
      await db('delivery.stats_hourly')
        .where('hour', '<', db.raw("date_trunc('hour', ?::timestamptz)", [cutoff]))
        .delete();
    },
  };
}
