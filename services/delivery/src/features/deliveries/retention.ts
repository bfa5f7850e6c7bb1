import { createWaker, type Logger } from '@cluster/platform';
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

/** The retention loop of one replica. */
export interface RetentionSweeper {
  start(): void;
  /** One pass over every subscription; returns how many deliveries were deleted. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Keeps the delivery log bounded: every `intervalMs`, deletes the finished
 * deliveries (and their attempts) created more than `retentionMs` ago, a batch at
 * a time per subscription. Replicas sweep independently; a row two of them reach
 * at once is deleted once. Deliveries still scheduled are never touched, whatever
 * their age (retries end after WEBHOOK_RETRY_MAX_AGE_MS anyway).
 */
export function createRetentionSweeper(opts: RetentionOptions): RetentionSweeper {
  const { stores, metrics, logger } = opts;
  const batch = opts.batchSize ?? 1000;
  const waker = createWaker();
  let stopping = false;
  let loop: Promise<void> | undefined;

  const sweep = async (): Promise<number> => {
    if (opts.retentionMs <= 0) return 0;
    const before = new Date(Date.now() - opts.retentionMs);
    let deleted = 0;
    for (const id of await stores.subscriptions.allIds()) {
      for (;;) {
        if (stopping) return deleted;
        const n = await stores.deliveryRetention.pruneFinished(id, before, batch);
        deleted += n;
        metrics.pruned.inc(n);
        if (n < batch) break;
      }
    }
    return deleted;
  };

  const run = async () => {
    await waker.sleep(Math.ceil(opts.intervalMs / 10));
    while (!stopping) {
      try {
        const started = Date.now();
        const deleted = await sweep();
        if (deleted) logger.info({ deleted, ms: Date.now() - started }, 'deleted delivery records past their retention');
      } catch (err) {
        logger.warn({ err }, 'delivery retention sweep failed; trying again next interval');
      }
      await waker.sleep(opts.intervalMs);
    }
  };

  return {
    start() {
      if (opts.retentionMs > 0) loop = run();
    },
    sweep,
    async stop() {
      stopping = true;
      waker.stop();
      await loop;
    },
  };
}
