import { createRecoveryStore, type RecoveryStore } from './features/recovery/store.ts';
import type { Knex } from '@cluster/db';
import type { WriteRecord } from '@cluster/outbox';
import { createAttemptStore, type AttemptStore } from './features/attempts/store.ts';
import { createDeliveryQueueStore, type DeliveryQueueStore } from './features/deliveries/queue-store.ts';
import { createDeliveryReadStore, type DeliveryReadStore } from './features/deliveries/read-store.ts';
import { createDeliveryRetentionStore, type DeliveryRetentionStore } from './features/deliveries/retention-store.ts';
import { createSubscriptionStore, type SubscriptionStore } from './features/subscriptions/store.ts';
import { createPortalStore, type PortalStore } from './features/portal/store.ts';
import { createTestCallStore, type TestCallStore } from './features/test-calls/store.ts';
import { recordWrite } from './shared/write.ts';

/**
 * Every store of the delivery service, bound to one connection pool or one
 * transaction. Services take this (a unit of work): `transaction` runs a write with
 * every store bound to the same transaction, and `record` commits the write's audit
 * record and events (the one write path, packages/outbox `commitWrite`) in it. A
 * feature adds its store here and in fake-stores.ts.
 */
export interface Stores {
  subscriptions: SubscriptionStore;
  /** The deliveries' work queue: inserts, claims, leases, the backlog figures. */
  deliveryQueue: DeliveryQueueStore;
  /** The deliveries' read model of the API: records and statistics. */
  deliveryReads: DeliveryReadStore;
  /** Deleting finished deliveries. */
  deliveryRetention: DeliveryRetentionStore;
  attempts: AttemptStore;
  testCalls: TestCallStore;
  recovery: RecoveryStore;
  /** The integrator portal's sessions and settings. */
  portal: PortalStore;
  /** Runs `work` in one transaction with every store bound to it (nested: a savepoint). */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
  /** Writes a change's audit record and events; atomic with the change inside `transaction`. */
  record(write: WriteRecord): Promise<void>;
}

/** The Postgres stores of the delivery service over `db` (a pool or a transaction). */
export function createStores(db: Knex): Stores {
  return {
    subscriptions: createSubscriptionStore(db),
    deliveryQueue: createDeliveryQueueStore(db),
    deliveryReads: createDeliveryReadStore(db),
    deliveryRetention: createDeliveryRetentionStore(db),
    attempts: createAttemptStore(db),
    testCalls: createTestCallStore(db),
    recovery: createRecoveryStore(db),
    portal: createPortalStore(db),
    transaction: (work) => db.transaction((trx) => work(createStores(trx))),
    record: (write) => recordWrite(db, write),
  };
}
