import { createFakeRecoveryStore } from './features/recovery/fake-store.ts';
import type { WriteRecord } from '@cluster/outbox';
import { createFakeAttemptStore } from './features/attempts/fake-store.ts';
import { createFakeDeliveryQueueStore } from './features/deliveries/fake-queue-store.ts';
import { createFakeDeliveryReadStore, type FakeStatsKept } from './features/deliveries/fake-read-store.ts';
import { createFakeDeliveryRetentionStore } from './features/deliveries/fake-retention-store.ts';
import type { DeliveryRow } from './features/deliveries/rows.ts';
import { createFakeSubscriptionStore } from './features/subscriptions/fake-store.ts';
import { createFakePortalStore } from './features/portal/fake-store.ts';
import { createFakeTestCallStore } from './features/test-calls/fake-store.ts';
import type { Stores } from './stores.ts';

/**
 * In-memory Stores for unit tests of the rules: no Postgres, no Kafka. `written`
 * collects every committed write (audit rows and events) for assertions. A
 * transaction is not isolated and does not roll back: test rules, not atomicity
 * (the real-Postgres tests in test/ cover that). `clock` is the fake database's now.
 */
export function createFakeStores(clock: () => Date = () => new Date()) {
  const written: WriteRecord[] = [];
  const subscriptions = createFakeSubscriptionStore();
  const deliveryRows: DeliveryRow[] = [];
  const deliveryQueue = createFakeDeliveryQueueStore(subscriptions.rows, deliveryRows, clock);
  const attempts = createFakeAttemptStore(deliveryRows, subscriptions.rows, clock, deliveryQueue.throttles);
  // What the statistics rollup keeps beyond the rows (the retention's deletions), shared by the two stores.
  const statsKept: FakeStatsKept = { deliveries: [], log: [], prunedBefore: null };
  const stores = {
    written,
    subscriptions,
    deliveryQueue,
    deliveryReads: createFakeDeliveryReadStore(deliveryRows, subscriptions.rows, attempts.log, statsKept),
    deliveryRetention: createFakeDeliveryRetentionStore(deliveryRows, attempts.log, clock, statsKept),
    attempts,
    testCalls: createFakeTestCallStore(),
    recovery: createFakeRecoveryStore(deliveryRows, subscriptions.rows, clock),
    portal: createFakePortalStore(),
    transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T> {
      return work(stores);
    },
    async record(write: WriteRecord): Promise<void> {
      written.push(write);
    },
  } satisfies Stores & { written: WriteRecord[] };
  return stores;
}
export type FakeStores = ReturnType<typeof createFakeStores>;
