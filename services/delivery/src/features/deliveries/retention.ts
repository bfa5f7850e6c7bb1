import { STATS_WINDOWS } from '@cluster/contracts';
import type { Logger, PeriodicJobDefinition } from '@cluster/platform';
import type { DeliveryMetrics } from '../../metrics.ts';
import type { Stores } from '../../stores.ts';

/** What the retention sweeper is made of. */
export interface RetentionOptions {
  /** Subscriptions to walk, deliveries to delete. */
  stores: Pick<Stores, 'subscriptions' | 'deliveryRetention'>;
  metrics: DeliveryMetrics;
  logger: Logger;
  /** Finished deliveries older than this are deleted; 0 keeps them forever. */
  retentionMs: number;
  /** Time between sweeps (the first comes one tenth of it after start). */
  intervalMs: number;
  /** Rows per DELETE, so no statement holds many locks or runs long. */
  batchSize?: number;
}

/** The retention sweep of one replica. */
export interface RetentionSweeper {
  /** One pass over every subscription; returns how many deliveries were deleted (fewer when `signal` aborts it). */
  sweep(signal?: AbortSignal): Promise<number>;
  /** The sweep every `intervalMs`, the first one tenth of it after start; off when nothing expires. */
  job: PeriodicJobDefinition;
}

/**
 * Keeps the delivery log bounded: every `intervalMs`, deletes the finished
 * deliveries (and their attempts) created more than `retentionMs` ago, a batch at
 * a time per subscription. Replicas sweep independently; a row two of them reach
 * at once is deleted once. Deliveries still scheduled are never touched, whatever
 * their age (retries end after WEBHOOK_RETRY_MAX_AGE_MS anyway). Hourly filtered counts and
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
    let deleted = 0;
    for (const id of await stores.subscriptions.allIds()) {
      for (;;) {
        if (signal?.aborted) return deleted;
        const n = await stores.deliveryRetention.pruneFinished(id, before, batch);
        deleted += n;
        metrics.pruned.inc(n);
        if (n < batch) break;
      }
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
