import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import {
  fakeDeliveryWorld,
  fromNow,
  lockTurns,
  MIN,
  postgresDeliveryWorld,
  type DeliveryWorld,
} from '../../shared/contract-world.ts';
import { ORG, OTHER_ORG } from '../../shared/test-fixtures.ts';

// TestCallStore (the rolling window of POST /webhooks/:id/test), against its fake and Postgres.
describeStoreContract<DeliveryWorld>('TestCallStore', {
  database: useContractDatabase('delivery', migrations),
  fake: fakeDeliveryWorld,
  postgres: postgresDeliveryWorld,
  cases: {
    async "answers an organization's calls made after a time, oldest first"(w) {
      const [a, b, c] = [fromNow(-3 * MIN), fromNow(-2 * MIN), fromNow(-MIN)];
      for (const at of [c, a, b]) await w.stores.testCalls.add(ORG, at);
      await w.stores.testCalls.add(OTHER_ORG, b);
      expect(await w.stores.testCalls.madeAfter(ORG, fromNow(-10 * MIN))).toEqual([a, b, c]);
      expect(await w.stores.testCalls.madeAfter(ORG, a)).toEqual([b, c]);
      expect(await w.stores.testCalls.madeAfter(ORG, new Date())).toEqual([]);
      expect(await w.stores.testCalls.madeAfter(OTHER_ORG, a)).toEqual([b]);
    },

    async "forgets an organization's calls made at or before a time, and no other"(w) {
      const [a, b, c] = [fromNow(-3 * MIN), fromNow(-2 * MIN), fromNow(-MIN)];
      for (const at of [a, b, c]) await w.stores.testCalls.add(ORG, at);
      await w.stores.testCalls.add(OTHER_ORG, a);
      await w.stores.testCalls.prune(ORG, b);
      expect(await w.stores.testCalls.madeAfter(ORG, fromNow(-10 * MIN))).toEqual([c]);
      expect(await w.stores.testCalls.madeAfter(OTHER_ORG, fromNow(-10 * MIN))).toEqual([a]);
    },

    async "one organization's lock does not hold another's test calls"(w) {
      const turns = await lockTurns(
        w,
        (tx) => tx.testCalls.lock(ORG),
        (tx) => tx.testCalls.lock(OTHER_ORG),
      );
      expect(turns).toEqual(['second took', 'first ended']);
    },
  },
  postgresOnly: {
    "serialises an organization's test calls until the transaction ends": {
      reason: 'the fake runs in one process with no concurrent transactions: its lock is a no-op',
      async test(w) {
        expect(await lockTurns(w, (tx) => tx.testCalls.lock(ORG))).toEqual(['first ended', 'second took']);
      },
    },
  },
});
