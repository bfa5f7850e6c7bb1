import type { Gauge } from 'prom-client';

/** The consumer-lag gauge of one replica, kept to the partitions it owns. */
export interface ConsumerLag {
  /** The lag after a batch of `partition`. */
  set(partition: number, lag: number): void;
  /** A rebalance gave this replica `partitions` (its GROUP_JOIN's `memberAssignment[topic]`). */
  assigned(partitions: readonly number[] | undefined): void;
}

/**
 * Keeps `delivery_webhook_consumer_lag{partition}` honest across rebalances: a partition that
 * moved to another replica drops its series here, instead of repeating the last lag this replica
 * saw forever (a frozen value the alert and the dashboard would sum with the new owner's).
 */
export function createConsumerLag(gauge: Gauge<'partition'>): ConsumerLag {
  const reported = new Set<string>();
  return {
    set(partition, lag) {
      const key = String(partition);
      reported.add(key);
      gauge.set({ partition: key }, lag);
    },
    assigned(partitions) {
      const owned = new Set((partitions ?? []).map(String));
      for (const key of [...reported]) {
        if (owned.has(key)) continue;
        gauge.remove({ partition: key });
        reported.delete(key);
      }
    },
  };
}
