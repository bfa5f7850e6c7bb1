import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import {
  addDue,
  addSubscription,
  attemptOf,
  fakeDeliveryWorld,
  postgresDeliveryWorld,
  fromNow,
  MIN,
  type DeliveryWorld,
} from '../../shared/contract-world.ts';

// DeliveryRetentionStore, against its fake and Postgres.
describeStoreContract<DeliveryWorld>('DeliveryRetentionStore', {
  database: useContractDatabase('delivery', migrations),
  fake: fakeDeliveryWorld,
  postgres: postgresDeliveryWorld,
  cases: {
    async 'deletes finished deliveries created before the cut, oldest first, up to the limit, with their attempts'(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const [attempted] = await addDue(w, sub, [-MIN]);
      const {
        deliveries: [claimed],
      } = await w.stores.deliveryQueue.claim({ limit: 1, leaseMs: MIN, defaultCap: 1, caps: new Map() });
      await w.stores.attempts.recordAttempt(attemptOf(claimed, true, { kind: 'succeeded' }));
      const [oldest, older, recent] = await addDue(w, sub, [null, null, null]);
      const [theirs] = await addDue(w, other, [null]);
      const ages: [string, number][] = [
        [attempted, -50],
        [oldest, -60],
        [older, -55],
        [recent, -1],
        [theirs, -60],
      ];
      for (const [id, minutes] of ages) await w.patchDelivery(id, { createdAt: fromNow(minutes * MIN) });
      expect(await w.stores.deliveryRetention.pruneFinished(sub.id, fromNow(-10 * MIN), 2)).toBe(2);
      expect(await w.delivery(oldest)).toBeUndefined();
      expect(await w.delivery(older)).toBeUndefined();
      expect(await w.delivery(attempted)).toBeDefined();
      expect(await w.stores.deliveryRetention.pruneFinished(sub.id, fromNow(-10 * MIN), 2)).toBe(1);
      expect(await w.delivery(attempted)).toBeUndefined();
      expect(await w.stores.attempts.listFor(attempted)).toEqual([]);
      expect(await w.delivery(recent)).toBeDefined();
      expect(await w.delivery(theirs)).toBeDefined();
    },

    async "keeps a deleted delivery in the statistics until the rollup's hours are pruned"(w) {
      const sub = await addSubscription(w);
      const [id] = await addDue(w, sub, [null]);
      await w.patchDelivery(id, { createdAt: fromNow(-60 * MIN), status: 'succeeded' });
      const hour = 60 * MIN;
      const since = new Date(Math.floor(Date.now() / hour) * hour - 2 * hour);
      const byStatus = async () => (await w.stores.deliveryReads.stats(sub.id, since, { bucketMs: hour, buckets: 3 })).byStatus;
      expect(await byStatus()).toEqual({ succeeded: 1 });
      expect(await w.stores.deliveryRetention.pruneFinished(sub.id, fromNow(-10 * MIN), 10)).toBe(1);
      expect(await w.delivery(id)).toBeUndefined();
      expect(await byStatus()).toEqual({ succeeded: 1 });
      await w.stores.deliveryRetention.pruneStats(since);
      expect(await byStatus()).toEqual({ succeeded: 1 });
      await w.stores.deliveryRetention.pruneStats(fromNow(hour));
      expect(await byStatus()).toEqual({});
    },

    async 'never deletes a delivery with an attempt scheduled or in flight'(w) {
      const sub = await addSubscription(w);
      const [scheduled, leased, lapsed] = await addDue(w, sub, [MIN, null, null]);
      await w.patchDelivery(leased, { lockedUntil: fromNow(MIN), leaseToken: crypto.randomUUID() });
      await w.patchDelivery(lapsed, { lockedUntil: fromNow(-MIN), leaseToken: crypto.randomUUID() });
      for (const id of [scheduled, leased, lapsed]) await w.patchDelivery(id, { createdAt: fromNow(-60 * MIN) });
      expect(await w.stores.deliveryRetention.pruneFinished(sub.id, fromNow(-10 * MIN), 10)).toBe(1);
      expect(await w.delivery(lapsed)).toBeUndefined();
    },
  },
});
