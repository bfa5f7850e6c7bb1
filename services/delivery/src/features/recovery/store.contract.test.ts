import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import {
  addDue,
  addSubscription,
  fakeDeliveryWorld,
  fromNow,
  MIN,
  postgresDeliveryWorld,
  type DeliveryWorld,
} from '../../shared/contract-world.ts';
import { ORG, OTHER_ORG } from '../../shared/test-fixtures.ts';
import type { DeliveryRow } from '../deliveries/rows.ts';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import type { RecoveryRow } from './store.ts';

// RecoveryStore (redeliveries and recoveries), against its fake (fake-store.ts, over the fake deliveries
// and subscriptions) and Postgres.

/** A recovery of `sub` over the last hour. */
async function addRecovery(w: DeliveryWorld, sub: SubscriptionRow, window = { since: fromNow(-60 * MIN), until: new Date() }) {
  return w.stores.recovery.insert({ id: randomUUID(), organizationId: sub.organizationId, subscriptionId: sub.id, ...window });
}

/** Finished deliveries of `sub` created at these offsets from now (equal offsets: the same time), with these columns. */
async function addFinished(w: DeliveryWorld, sub: SubscriptionRow, rows: [number, Partial<DeliveryRow>][]): Promise<string[]> {
  const ids = await addDue(
    w,
    sub,
    rows.map(() => null),
  );
  const now = Date.now(); // one now: equal offsets are equal creation times
  for (const [i, [ms, values]] of rows.entries()) {
    const at = new Date(now + ms);
    await w.patchDelivery(ids[i], { createdAt: at, attempts: 3, firstAttemptAt: at, ...values });
  }
  return ids;
}

const dead = { status: 'dead_letter' } as const;
const failed = { status: 'failed' } as const;

/** Requeues one batch of the recovery as stored now (its cursor moves between batches). */
async function batch(w: DeliveryWorld, recovery: RecoveryRow, limit: number) {
  const now = await w.stores.recovery.find(recovery.organizationId, recovery.subscriptionId, recovery.id);
  return w.stores.recovery.requeueBatch(now!, limit);
}

describeStoreContract<DeliveryWorld>('RecoveryStore', {
  database: useContractDatabase('delivery', migrations),
  fake: fakeDeliveryWorld,
  postgres: postgresDeliveryWorld,
  cases: {
    async 'inserts a recovery running from the start of its window, found under its organization and subscription only'(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const since = fromNow(-60 * MIN);
      const until = fromNow(-MIN);
      const recovery = await addRecovery(w, sub, { since, until });
      expect(recovery).toMatchObject({
        organizationId: ORG,
        subscriptionId: sub.id,
        since,
        until,
        status: 'running',
        requeued: 0,
        cursorCreatedAt: null,
        cursorId: null,
        completedAt: null,
      });
      expect(recovery.updatedAt).toEqual(recovery.createdAt);
      expect(await w.stores.recovery.find(ORG, sub.id, recovery.id)).toEqual(recovery);
      expect(await w.stores.recovery.find(OTHER_ORG, sub.id, recovery.id)).toBeUndefined();
      expect(await w.stores.recovery.find(ORG, other.id, recovery.id)).toBeUndefined();
      expect(await w.stores.recovery.find(ORG, sub.id, 'not-a-uuid')).toBeUndefined();
    },

    async 'leases one delivery of the subscription for a redelivery, with what the sender needs'(w) {
      const sub = await addSubscription(w);
      const [id] = await addFinished(w, sub, [[-MIN, dead]]);
      const before = Date.now();
      const leased = await w.stores.recovery.leaseOne(sub.id, id, 10 * MIN);
      const stored = await w.delivery(id);
      expect(leased).toEqual({
        id,
        createdAt: stored?.createdAt,
        organizationId: ORG,
        subscriptionId: sub.id,
        eventName: 'entry.created',
        body: '{"x":1}',
        attempts: 3,
        firstAttemptAt: stored?.firstAttemptAt,
        leaseToken: stored?.leaseToken,
        nextAttemptAt: null,
        traceparent: null,
        destinationUrl: sub.destinationUrl,
        destinationOrigin: sub.destinationOrigin,
        secretSealed: 'sealed',
        previousSecretSealed: null,
        previousSecretUntil: null,
        receiverSealed: null,
        orderKey: null,
      });
      expect(stored?.leaseToken).not.toBeNull();
      const lease = (stored?.lockedUntil?.getTime() ?? 0) - before;
      expect(lease).toBeGreaterThan(9 * MIN);
      expect(lease).toBeLessThan(11 * MIN);
    },

    async 'leases nothing while an attempt is in flight, of another subscription, or of an unknown id'(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const [held, lapsed] = await addFinished(w, sub, [
        [-2 * MIN, failed],
        [-MIN, failed],
      ]);
      await w.patchDelivery(held, { lockedUntil: fromNow(MIN), leaseToken: randomUUID() });
      await w.patchDelivery(lapsed, { lockedUntil: fromNow(-MIN), leaseToken: randomUUID() });
      expect(await w.stores.recovery.leaseOne(sub.id, held, MIN)).toBeUndefined();
      expect(await w.stores.recovery.leaseOne(other.id, lapsed, MIN)).toBeUndefined();
      expect(await w.stores.recovery.leaseOne(sub.id, randomUUID(), MIN)).toBeUndefined();
      expect(await w.stores.recovery.leaseOne(sub.id, 'not-a-uuid', MIN)).toBeUndefined();
      expect((await w.stores.recovery.leaseOne(sub.id, lapsed, MIN))?.id).toBe(lapsed);
    },

    async "queues again the window's dead-lettered and stopped deliveries, no other, and completes"(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const [deadOne, stopped, retrying, succeeded, test, before, after] = await addFinished(w, sub, [
        [-30 * MIN, dead],
        [-20 * MIN, failed],
        [-25 * MIN, { status: 'failed', nextAttemptAt: fromNow(MIN) }],
        [-15 * MIN, { status: 'succeeded' }],
        [-10 * MIN, { ...dead, test: true }],
        [-90 * MIN, dead],
        [MIN, dead],
      ]);
      const [theirs] = await addFinished(w, other, [[-30 * MIN, dead]]);
      const recovery = await addRecovery(w, sub);
      expect(await w.stores.recovery.requeueBatch(recovery, 10)).toEqual({ requeued: 2, done: true });
      for (const id of [deadOne, stopped]) {
        const row = await w.delivery(id);
        expect(row?.firstAttemptAt).toBeNull();
        expect(row?.nextAttemptAt?.getTime()).toBeGreaterThan(Date.now() - MIN / 2);
      }
      for (const id of [retrying, succeeded, test, before, after, theirs]) {
        expect((await w.delivery(id))?.firstAttemptAt).not.toBeNull();
      }
      const done = await w.stores.recovery.find(ORG, sub.id, recovery.id);
      expect(done).toMatchObject({ status: 'completed', requeued: 2, cursorId: stopped });
      expect(done?.completedAt).not.toBeNull();
      expect(await w.stores.recovery.requeueBatch(done!, 10)).toEqual({ requeued: 0, done: true });
    },

    async 'queues a window in batches after its cursor, in creation order, ties broken by id'(w) {
      const sub = await addSubscription(w);
      const ids = await addFinished(w, sub, [
        [-40 * MIN, dead],
        [-30 * MIN, dead],
        [-30 * MIN, failed],
        [-20 * MIN, dead],
        [-10 * MIN, failed],
      ]);
      const tied = [ids[1], ids[2]].sort();
      const order = [ids[0], ...tied, ids[3], ids[4]];
      const recovery = await addRecovery(w, sub);
      expect(await batch(w, recovery, 2)).toEqual({ requeued: 2, done: false });
      const first = await w.stores.recovery.find(ORG, sub.id, recovery.id);
      expect(first).toMatchObject({ status: 'running', requeued: 2, cursorId: order[1], completedAt: null });
      expect(first?.cursorCreatedAt).toEqual((await w.delivery(order[1]))?.createdAt);
      expect((await w.delivery(order[2]))?.nextAttemptAt).toBeNull();
      expect(await batch(w, recovery, 2)).toEqual({ requeued: 2, done: false });
      expect((await w.stores.recovery.find(ORG, sub.id, recovery.id))?.cursorId).toBe(order[3]);
      expect(await batch(w, recovery, 2)).toEqual({ requeued: 1, done: true });
      expect(await w.stores.recovery.find(ORG, sub.id, recovery.id)).toMatchObject({
        status: 'completed',
        requeued: 5,
        cursorId: order[4],
      });
      for (const id of ids) expect((await w.delivery(id))?.nextAttemptAt).not.toBeNull();
    },

    async 'names the running recoveries nobody moved for a while'(w) {
      const sub = await addSubscription(w);
      const [idle, moving, finished] = [await addRecovery(w, sub), await addRecovery(w, sub), await addRecovery(w, sub)];
      await w.patchRecovery(idle.id, { updatedAt: fromNow(-10 * MIN) });
      await w.patchRecovery(moving.id, { updatedAt: fromNow(-MIN) });
      await w.patchRecovery(finished.id, { updatedAt: fromNow(-10 * MIN), status: 'completed', completedAt: fromNow(-10 * MIN) });
      expect((await w.stores.recovery.stale(5 * MIN)).map((r) => r.id)).toEqual([idle.id]);
      expect((await w.stores.recovery.stale(0)).map((r) => r.id).sort()).toEqual([idle.id, moving.id].sort());
    },
  },
  postgresOnly: {
    'skips a delivery another transaction holds, rather than wait for it': {
      reason: 'the fake has no row locks: its transaction neither isolates nor locks',
      async test(w) {
        const sub = await addSubscription(w);
        const [held, free] = await addFinished(w, sub, [
          [-20 * MIN, dead],
          [-10 * MIN, dead],
        ]);
        const recovery = await addRecovery(w, sub);
        const result = await w.stores.transaction(async (tx) => {
          await tx.recovery.leaseOne(sub.id, held, MIN);
          return w.stores.recovery.requeueBatch(recovery, 10);
        });
        expect(result).toEqual({ requeued: 1, done: true });
        expect((await w.delivery(free))?.nextAttemptAt).not.toBeNull();
        expect((await w.delivery(held))?.nextAttemptAt).toBeNull();
      },
    },
  },
});
