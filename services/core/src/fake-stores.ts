import type { WriteRecord } from '@cluster/outbox';
import { createFakeProjectStore } from './features/projects/fake-store.ts';
import type { Stores } from './stores.ts';

/**
 * In-memory Stores for unit tests of the rules: no Postgres, no Kafka. `written`
 * collects every committed write (audit rows and events) for assertions. A
 * transaction is not isolated and does not roll back: test rules, not atomicity
 * (the real-Postgres tests in test/ cover that).
 */
export function createFakeStores() {
  const written: WriteRecord[] = [];
  const stores = {
    written,
    projects: createFakeProjectStore(),
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
