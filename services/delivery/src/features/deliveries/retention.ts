import { STATS_WINDOWS } from '@cluster/contracts';
import type { Logger, PeriodicJobDefinition } from '@cluster/platform';
import type { DeliveryMetrics } from '../../metrics.ts';
import { PARTITIONS_AHEAD_DAYS } from '../../migrations/018-partitioned-deliveries.ts';
import type { Stores } from '../../stores.ts';

/** What the retention sweeper is made of. */
export interface RetentionOptions {
  /** Partitions to drop, deliveries to delete. */
  stores: Pick<Stores, 'subscriptions' | 'deliveryRetention'>;
  metrics: DeliveryMetrics;
  logger: Logger;
  /** Finished deliveries older than this are deleted; 0 keeps them forever. */
  retentionMs: number;
  /** Time between sweeps (the first comes one tenth of it after start). */
  intervalMs: number;
  /** Rows per DELETE, so no statement holds many locks or runs long. */
  batchSize?: number;
  /** At most this many unfinished deliveries move out of a partition to be dropped (default MAX_KEPT_PER_PARTITION). */
  maxKeptPerPartition?: number;
}

/** The retention sweep of one replica. */
export interface RetentionSweeper {
  /**
   * One pass: drops the expired weekly partitions, then deletes the expired finished rows outside them, in
   * batches; returns how many rows it deleted one by one (fewer when `signal` aborts it). Partitions dropped
   * count in `metrics.partitionsDropped`, not here.
   */
  sweep(signal?: AbortSignal): Promise<number>;
  /** The sweep every `intervalMs`, the first one tenth of it after start; off when nothing expires. */
  job: PeriodicJobDefinition;
}

/**
 * How many unfinished deliveries a partition past its retention may hold and still be dropped (they move to
 * the default partition first, under the drop's exclusive lock); with more, it waits for a later sweep.
 */
export const MAX_KEPT_PER_PARTITION = 10_000;

/**
 * Keeps the delivery log bounded (docs/decisions-webhooks.md, "Partitioned delivery log"): every `intervalMs`,
 * drops each weekly partition of `deliveries` and `attempts` whose whole week was created more than `retentionMs`
 * ago (a catalog change, not a row delete), after moving its still unfinished deliveries, with their attempts,
 * to the default partition; then deletes, a batch at a time, the finished rows of the default partition past
 * the retention. Deliveries still scheduled are never touched, whatever their age. Replicas sweep
 * independently; the partition functions serialise them (an advisory lock). Hourly filtered counts and
 * statistics rollup rows older than the longest statistics window go too.
 */
export function createRetentionSweeper(opts: RetentionOptions): RetentionSweeper {
  const { stores, metrics, logger } = opts;
  const batch = opts.batchSize ?? 1000;

  const sweep = async (signal?: AbortSignal): Promise<number> => {
    if (opts.retentionMs <= 0) return 0;
    const before = new Date(Date.now() - opts.retentionMs);
    // Filtered counts and the statistics rollup are only read by the statistics: kept for their longest window and an hour.
    const statsCutoff = new Date(Date.now() - Math.max(...Object.values(STATS_WINDOWS)) - 3_600_000);
    await stores.subscriptions.pruneFiltered(statsCutoff);
    await stores.deliveryRetention.pruneStats(statsCutoff);
    for (const suffix of await stores.deliveryRetention.expiredPartitions(before)) {
      if (signal?.aborted) return 0;
      const kept = await stores.deliveryRetention.dropPartition(suffix, opts.maxKeptPerPartition ?? MAX_KEPT_PER_PARTITION);
      if (kept === null) {
        logger.warn(
          { partition: suffix },
          'delivery partition past its retention left: too many of its deliveries are unfinished',
        );
        continue;
      }
      metrics.partitionsDropped.inc();
      metrics.partitionRowsKept.inc(kept);
      logger.info({ partition: suffix, kept }, 'dropped a delivery partition past its retention');
    }
    let deleted = 0;
    for (;;) {
      if (signal?.aborted) return deleted;
      const n = await stores.deliveryRetention.pruneUnpartitioned(before, batch);
      deleted += n;
      metrics.pruned.inc(n);
      if (n < batch) break;
    }
    return deleted;
  };

  return {
    sweep,
    job: {
      name: 'retention_sweep',
      what: 'delivery retention sweep',
      intervalMs: opts.intervalMs,
      firstDelayMs: Math.ceil(opts.intervalMs / 10),
      enabled: opts.retentionMs > 0,
      async run(signal) {
        const started = Date.now();
        const deleted = await sweep(signal);
        if (deleted) logger.info({ deleted, ms: Date.now() - started }, 'deleted delivery records past their retention');
      },
    },
  };
}

/** What the partition keeper is made of. */
export interface PartitionKeeperOptions {
  stores: Pick<Stores, 'deliveryRetention'>;
  metrics: DeliveryMetrics;
  logger: Logger;
  /** Time between runs (the first comes soon after start). */
  intervalMs: number;
  /** Days of partitions kept ready ahead of today (default PARTITIONS_AHEAD_DAYS). */
  aheadDays?: number;
}

/**
 * Creates the weekly partitions of the delivery log ahead of time (docs/decisions-webhooks.md, "Partitioned
 * delivery log"): every `intervalMs`, the partitions of the weeks of today and of the next `aheadDays` days that are missing.
 * Every replica runs it; the partition function's advisory lock makes it idempotent across them. Whatever it
 * misses, an insert still lands (in the default partition), and the week's partition takes those rows when made.
 */
export function createPartitionKeeper(opts: PartitionKeeperOptions): { ensure(): Promise<number>; job: PeriodicJobDefinition } {
  const ensure = async (): Promise<number> => {
    const created = await opts.stores.deliveryRetention.ensurePartitions(new Date(), opts.aheadDays ?? PARTITIONS_AHEAD_DAYS);
    opts.metrics.partitionsCreated.inc(created);
    if (created) opts.logger.info({ created }, 'created delivery partitions ahead');
    return created;
  };
  return {
    ensure,
    job: {
      name: 'partition_upkeep',
      what: 'delivery partition upkeep',
      intervalMs: opts.intervalMs,
      firstDelayMs: Math.min(5_000, Math.ceil(opts.intervalMs / 10)),
      async run() {
        await ensure();
      },
    },
  };
}
