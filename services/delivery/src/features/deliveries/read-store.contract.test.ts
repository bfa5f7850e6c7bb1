import { expect } from 'vitest';
import { DELIVERY_FIELDS } from '@cluster/contracts';
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
  newDelivery,
  type DeliveryWorld,
} from '../../shared/contract-world.ts';
import { OTHER_ORG } from '../../shared/test-fixtures.ts';

// DeliveryReadStore (the API's records and statistics), against its fake and Postgres.
const page = { page: 1, pageSize: 2 };

describeStoreContract<DeliveryWorld>('DeliveryReadStore', {
  database: useContractDatabase('delivery', migrations),
  fake: fakeDeliveryWorld,
  postgres: postgresDeliveryWorld,
  cases: {
    async "lists a subscription's records newest first, a page at a time with the total, of one status if asked"(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const ids = await addDue(w, sub, [null, null, null]);
      await addDue(w, other, [null]);
      for (const [i, id] of ids.entries()) await w.patchDelivery(id, { createdAt: fromNow(-10 * MIN + i * MIN) });
      await w.patchDelivery(ids[0], { status: 'dead_letter' });
      const first = await w.stores.deliveryReads.list(sub.organizationId, sub.id, {}, page);
      expect(first).toMatchObject({ page: 1, pageSize: 2, total: 3 });
      expect(first.data.map((r) => r.id)).toEqual([ids[2], ids[1]]);
      const second = await w.stores.deliveryReads.list(sub.organizationId, sub.id, {}, { page: 2, pageSize: 2 });
      expect(second.data.map((r) => r.id)).toEqual([ids[0]]);
      expect(second.total).toBe(3);
      const dead = await w.stores.deliveryReads.list(sub.organizationId, sub.id, { status: 'dead_letter' }, page);
      expect([dead.total, dead.data.map((r) => r.id)]).toEqual([1, [ids[0]]]);
      expect((await w.stores.deliveryReads.list(OTHER_ORG, sub.id, {}, page)).total).toBe(0);
    },

    async 'gives the fields of DELIVERY_FIELDS, and no other'(w) {
      const sub = await addSubscription(w);
      const row = newDelivery(sub);
      await w.stores.deliveryQueue.insertMany([row]);
      const found = await w.stores.deliveryReads.find(sub.organizationId, sub.id, row.id);
      expect(Object.keys(found ?? {}).sort()).toEqual([...DELIVERY_FIELDS].sort());
      expect(found).toMatchObject({
        id: row.id,
        subscriptionId: sub.id,
        eventName: 'entry.created',
        eventId: row.eventId,
        status: 'pending',
        attempts: 0,
        responseCode: null,
        responseBody: null,
        error: null,
        durationMs: null,
      });
      const [listed] = (await w.stores.deliveryReads.list(sub.organizationId, sub.id, {}, page)).data;
      expect(listed).toEqual(found);
    },

    async 'finds a record only in its organization and subscription; an id that is no UUID finds nothing'(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const [id] = await addDue(w, sub, [null]);
      expect(await w.stores.deliveryReads.find(OTHER_ORG, sub.id, id)).toBeUndefined();
      expect(await w.stores.deliveryReads.find(sub.organizationId, other.id, id)).toBeUndefined();
      expect(await w.stores.deliveryReads.find(sub.organizationId, sub.id, 'not-a-uuid')).toBeUndefined();
      expect((await w.stores.deliveryReads.find(sub.organizationId, sub.id, id))?.id).toBe(id);
    },

    async "counts a window's deliveries by status and its attempts, without test deliveries"(w) {
      const sub = await addSubscription(w);
      const [old, a, b, c, d] = await addDue(w, sub, [null, -MIN, -MIN, -MIN, -MIN]);
      await w.patchDelivery(old, { createdAt: fromNow(-48 * 60 * MIN), status: 'succeeded' });
      const test = newDelivery(sub, { eventId: null, test: true });
      await w.stores.deliveryQueue.insertMany([test]);
      const { deliveries } = await w.stores.deliveryQueue.claim({ limit: 10, leaseMs: MIN, defaultCap: 10, caps: new Map() });
      const by = (id: string) => deliveries.find((x) => x.id === id)!;
      const second = Math.floor(Date.now() / 1000) * 1000;
      const at = (ms: number) => new Date(second + ms);
      await w.stores.attempts.recordAttempts([
        attemptOf(by(a), true, { kind: 'succeeded' }, { durationMs: 40, attemptedAt: at(-3000) }),
        attemptOf(by(b), true, { kind: 'succeeded' }, { durationMs: 10, attemptedAt: at(-2000) }),
        attemptOf(by(c), false, { kind: 'retry', at: fromNow(MIN) }, { durationMs: 30, attemptedAt: at(-1000) }),
        attemptOf(by(d), false, { kind: 'final_failure' }, { durationMs: 20, attemptedAt: at(-4000) }),
      ]);
      const since = fromNow(-24 * 60 * MIN);
      const stats = await w.stores.deliveryReads.stats(sub.id, since, fromNow(-48 * 60 * MIN - MIN));
      expect(stats).toEqual({
        byStatus: { succeeded: 2, failed: 2 },
        attempts: { total: 4, succeeded: 2, failed: 2, p50: 20, p95: 40 },
        lastSuccessAt: at(-2000),
        lastFailureAt: at(-1000),
      });
      // Attempts of deliveries created before `createdAfter` are not read.
      const bounded = await w.stores.deliveryReads.stats(sub.id, since, fromNow(MIN));
      expect(bounded.attempts).toEqual({ total: 0, succeeded: 0, failed: 0, p50: null, p95: null });
      expect([bounded.lastSuccessAt, bounded.lastFailureAt]).toEqual([null, null]);
    },
  },
});
