import type { FakeStatsKept } from './fake-read-store.ts';
import type { DeliveryRetentionStore } from './retention-store.ts';
import type { DeliveryRow } from './rows.ts';
import { unleased } from './fake-queue-store.ts';

/**
 * An in-memory DeliveryRetentionStore for unit tests, over the fake delivery rows (and the fake
 * attempt log, whose entries of a deleted delivery go with it, as the cascade does). Held to the
 * real store by retention-store.contract.test.ts. What it deletes stays in `kept` for the statistics, as the
 * real rollup keeps it, until `pruneStats` moves their cut past it.
 */
export function createFakeDeliveryRetentionStore(
  rows: DeliveryRow[],
  log: { deliveryId: string }[] = [],
  clock: () => Date = () => new Date(),
  kept: FakeStatsKept = { deliveries: [], log: [], prunedBefore: null },
): DeliveryRetentionStore {
  const finished = (r: DeliveryRow, now: Date) =>
    r.nextAttemptAt === null && unleased(r, now) && !(r.status === 'pending' && r.orderKey !== null && !r.test);
  return {
    // No partitions here: every row is as if in the default partition.
    async ensurePartitions() {
      return 0;
    },
    async expiredPartitions() {
      return [];
    },
    async dropPartition() {
      return 0;
    },
    async pruneUnpartitioned(before, limit) {
      const now = clock();
      const gone = rows
        .filter((r) => r.createdAt < before && finished(r, now))
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .slice(0, limit);
      for (const r of gone) rows.splice(rows.indexOf(r), 1);
      const ids = new Set(gone.map((r) => r.id));
      for (let i = log.length - 1; i >= 0; i--) if (ids.has(log[i].deliveryId)) log.splice(i, 1);
      return gone.length;
    },
    async pruneFinished(subscriptionId, before, limit) {
      const now = clock();
      const gone = rows
        .filter(
          (r) => r.subscriptionId === subscriptionId && r.createdAt < before && r.nextAttemptAt === null && unleased(r, now),
        )
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .slice(0, limit);
      for (const r of gone) rows.splice(rows.indexOf(r), 1);
      kept.deliveries.push(...gone.map((r) => ({ ...r })));
      const ids = new Set(gone.map((r) => r.id));
      for (let i = log.length - 1; i >= 0; i--) {
        if (!ids.has(log[i].deliveryId)) continue;
        kept.log.push(log[i] as (typeof kept.log)[number]);
        log.splice(i, 1);
      }
      return gone.length;
    },
    async pruneStats(cutoff) {
      const hour = new Date(Math.floor(cutoff.getTime() / 3_600_000) * 3_600_000);
      if (!kept.prunedBefore || hour > kept.prunedBefore) kept.prunedBefore = hour;
    },
  };
}
