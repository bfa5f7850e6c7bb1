import type { Knex } from '@cluster/db';
import type { QueryResult } from 'pg';
import { UNFINISHED_ROW } from '../../migrations/018-partitioned-deliveries.ts';

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
   * Creates the missing weekly partitions of `deliveries` and `attempts` (migration 018) of the weeks holding the UTC day of `from`
   * and the `days` days after it; returns how many days were created. Idempotent across replicas (the
   * partition functions take an advisory lock); rows the default partitions took for such a week move in.
   */
  ensurePartitions(from: Date, days: number): Promise<number>;
  /** The partitions (their suffix: `p20261123`, named by its Monday, `archive`) whose every row was created before `before`, oldest first. */
  expiredPartitions(before: Date): Promise<string[]>;
  /**
   * Drops a partition of both tables (docs/decisions-webhooks.md, "Partitioned delivery log"): its unfinished
   * deliveries (an attempt scheduled, a live lease, an ordered one waiting) and their attempts move to the
   * default partitions first. Returns how many moved, or null when more than `maxKept` are unfinished (then
   * nothing is dropped).
   */
  dropPartition(suffix: string, maxKept: number): Promise<number | null>;
  /**
   * Deletes up to `limit` finished deliveries created before `before` that lie outside the weekly partitions
   * (the default partition: kept rows of dropped weeks, events older than every partition), oldest first, with
   * their attempts. Returns how many.
   */
  pruneUnpartitioned(before: Date, limit: number): Promise<number>;
  /**
   * Deletes the hourly statistics rollup's hours before `cutoff` (migration 019): the statistics read no
   * further back than their longest window. The hours of deliveries deleted with their partition stay until
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

    async ensurePartitions(from, days) {
      const { rows } = await db.raw<QueryResult<{ created: number }>>(
        `SELECT count(*) FILTER (WHERE delivery.delivery_partition_create(d::date))::int AS created
           FROM generate_series((?::timestamptz AT TIME ZONE 'UTC')::date, (?::timestamptz AT TIME ZONE 'UTC')::date + ?::int, interval '1 day') d`,
        [from, from, days],
      );
      return rows[0]?.created ?? 0;
    },

    async expiredPartitions(before) {
      // A range partition's bound as Postgres prints it: FOR VALUES FROM (...) TO ('2026-11-29 00:00:00+00').
      const { rows } = await db.raw<QueryResult<{ suffix: string }>>(
        `SELECT p.suffix FROM (
           SELECT substring(c.relname from '^deliveries_(.*)$') AS suffix,
                  substring(pg_get_expr(c.relpartbound, c.oid) from 'TO \\(''([^'']+)''\\)')::timestamptz AS until
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'delivery.deliveries'::regclass AND c.relname <> 'deliveries_default') p
          WHERE p.until <= ?
          ORDER BY p.until`,
        [before],
      );
      return rows.map((r) => r.suffix);
    },

    async dropPartition(suffix, maxKept) {
      const { rows } = await db.raw<QueryResult<{ kept: number }>>('SELECT delivery.delivery_partition_drop(?, ?) AS kept', [
        suffix,
        maxKept,
      ]);
      const kept = rows[0]?.kept ?? 0;
      return kept < 0 ? null : kept;
    },

    async pruneUnpartitioned(before, limit) {
      // Attempts go with their deliveries (the trigger delivery_attempts_follow, migration 018).
      const { rowCount } = await db.raw<QueryResult>(
        `DELETE FROM delivery.deliveries_default
          WHERE (id, "createdAt") IN (
            SELECT id, "createdAt" FROM delivery.deliveries_default
             WHERE "createdAt" < ? AND NOT ${UNFINISHED_ROW}
             ORDER BY "createdAt"
             LIMIT ?)`,
        [before, limit],
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
