import { expect } from 'vitest';
import { match } from '@cluster/platform/test-kit';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import {
  addDue,
  addSubscription,
  attemptOf,
  claimIds,
  fakeDeliveryWorld,
  postgresDeliveryWorld,
  fromNow,
  MIN,
  newDelivery,
  type DeliveryWorld,
} from '../../shared/contract-world.ts';

// DeliveryQueueStore, against its fake (fake-queue-store.ts, which re-implements CLAIM_SQL) and Postgres:
// both must claim the same deliveries for the same rows (due time, leases, per-origin caps, the scan
// window, stopped subscriptions, ordered keys). A claim returns its deliveries in no order: the cases
// compare sets, and the order of preference (oldest due first) shows through the limits.
const sorted = (ids: string[]) => [...ids].sort();
const X = 'https://x.example:443';
const Y = 'https://y.example:443';

describeStoreContract<DeliveryWorld>('DeliveryQueueStore', {
  database: useContractDatabase('delivery', migrations),
  fake: fakeDeliveryWorld,
  postgres: postgresDeliveryWorld,
  cases: {
    async 'claims due deliveries oldest due first, up to the limit, and never one twice'(w) {
      const sub = await addSubscription(w);
      const [a, b, c, later] = await addDue(w, sub, [-3 * MIN, -1 * MIN, -2 * MIN, 5 * MIN]);
      expect(await claimIds(w, { limit: 2 })).toEqual(sorted([a, c]));
      expect(await claimIds(w, { limit: 2 })).toEqual([b]);
      expect(await claimIds(w)).toEqual([]);
      expect((await w.delivery(later))?.lockedUntil).toBeNull();
    },

    async 'takes over a lapsed lease, never a live one'(w) {
      const sub = await addSubscription(w);
      const [live, lapsed] = await addDue(w, sub, [-2 * MIN, -1 * MIN]);
      await w.patchDelivery(live, { lockedUntil: fromNow(MIN), leaseToken: crypto.randomUUID() });
      await w.patchDelivery(lapsed, { lockedUntil: fromNow(-MIN), leaseToken: crypto.randomUUID() });
      expect(await claimIds(w)).toEqual([lapsed]);
    },

    async 'leases what it claims for leaseMs, with a new token, and returns what the sender needs'(w) {
      const sub = await addSubscription(w);
      const row = newDelivery(sub, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
      await w.stores.deliveryQueue.insertMany([row]);
      const before = Date.now();
      const { deliveries, more } = await w.stores.deliveryQueue.claim({
        limit: 5,
        leaseMs: 10 * MIN,
        defaultCap: 5,
        caps: new Map(),
      });
      expect(more).toBe(false);
      expect(deliveries).toEqual([
        {
          id: row.id,
          // Its time, which the statements that find it again name (the partition key, migration 018).
          createdAt: (await w.delivery(row.id))!.createdAt,
          organizationId: sub.organizationId,
          subscriptionId: sub.id,
          eventName: 'entry.created',
          body: '{"x":1}',
          attempts: 0,
          firstAttemptAt: null,
          leaseToken: match.any(String),
          destinationUrl: sub.destinationUrl,
          destinationOrigin: sub.destinationOrigin,
          secretSealed: 'sealed',
          previousSecretSealed: null,
          previousSecretUntil: null,
          receiverSealed: null,
          traceparent: row.traceparent,
          orderKey: null,
          throttledAttempts: 0,
          notBefore: null,
          slotted: false,
        },
      ]);
      const stored = await w.delivery(row.id);
      expect(stored?.leaseToken).toBe(deliveries[0].leaseToken);
      const lease = (stored?.lockedUntil?.getTime() ?? 0) - before;
      expect(lease).toBeGreaterThan(9 * MIN);
      expect(lease).toBeLessThan(11 * MIN);
    },

    async 'gives a rate-limited subscription evenly spaced send times up to the horizon, shared by every claim'(w) {
      const sub = await addSubscription(w, { rateLimit: 4 });
      await w.stores.subscriptions.syncThrottle(sub.id, true);
      const free = await addSubscription(w);
      await addDue(
        w,
        sub,
        Array.from({ length: 10 }, (_, i) => -MIN + i),
      );
      const [unthrottled] = await addDue(w, free, [-MIN]);
      const before = Date.now();
      const first = await w.stores.deliveryQueue.claim({ limit: 20, leaseMs: MIN, defaultCap: 20, caps: new Map() });
      const mine = first.deliveries.filter((d) => d.subscriptionId === sub.id);
      // 1/4 s apart from now, as far as now + 1 s (THROTTLE_HORIZON_MS): five of them.
      expect(mine).toHaveLength(5);
      const times = mine.map((d) => d.notBefore!.getTime()).sort((a, b) => a - b);
      expect(times.slice(1).map((t, i) => t - times[i])).toEqual([250, 250, 250, 250]);
      expect(times[0]).toBeGreaterThanOrEqual(before - 1000);
      expect(first.deliveries.find((d) => d.id === unthrottled)?.notBefore).toBeNull();
      // The next claim (any replica's) finds the next slot beyond the horizon: nothing yet.
      expect(await claimIds(w, { limit: 20, defaultCap: 20 })).toEqual([]);
    },

    async 'holds a subscription with maxInFlight to its free slots until a lease is given back'(w) {
      const sub = await addSubscription(w, { maxInFlight: 2 });
      await w.stores.subscriptions.syncThrottle(sub.id, true);
      await addDue(w, sub, [-5 * MIN, -4 * MIN, -3 * MIN, -2 * MIN]);
      const { deliveries } = await w.stores.deliveryQueue.claim({ limit: 10, leaseMs: MIN, defaultCap: 10, caps: new Map() });
      expect(deliveries.map((d) => [d.slotted, d.notBefore])).toEqual([
        [true, null],
        [true, null],
      ]);
      expect(await claimIds(w)).toEqual([]);
      await w.stores.deliveryQueue.release([deliveries[0]]);
      expect(await claimIds(w)).toHaveLength(1);
    },

    async 'claims nothing of a paused subscription until its pause ends, and the rest as usual'(w) {
      const paused = await w.stores.subscriptions.update((await addSubscription(w, {}, X)).id, { pausedUntil: fromNow(MIN) });
      const other = await addSubscription(w);
      await addDue(w, paused, [-2 * MIN]);
      const [o] = await addDue(w, other, [-MIN]);
      expect(await claimIds(w)).toEqual([o]);
      expect(await w.stores.deliveryQueue.countPaused()).toBe(1);
      // Its due row waits by design: not the loop's overdue work.
      expect(await w.stores.deliveryQueue.oldestUnservedDueAt()).toBeNull();
    },

    async 'holds each destination origin to its cap, else to the default cap, oldest first'(w) {
      const x = await addSubscription(w, {}, X);
      const y = await addSubscription(w, {}, Y);
      const xs = await addDue(w, x, [-6 * MIN, -5 * MIN, -4 * MIN]);
      const ys = await addDue(w, y, [-3 * MIN, -2 * MIN, -1 * MIN]);
      const claimed = await claimIds(w, { caps: new Map([[X, 1]]), defaultCap: 2 });
      expect(claimed).toEqual(sorted([xs[0], ys[0], ys[1]]));
    },

    async 'skips an origin without a free slot in the scan itself, so its backlog cannot starve the others'(w) {
      const x = await addSubscription(w, {}, X);
      const y = await addSubscription(w, {}, Y);
      await addDue(
        w,
        x,
        Array.from({ length: 120 }, (_, i) => -10 * MIN + i),
      );
      const [ys] = await addDue(w, y, [-MIN]);
      const { deliveries, more } = await w.stores.deliveryQueue.claim({
        limit: 1,
        leaseMs: MIN,
        defaultCap: 5,
        caps: new Map([[X, 0]]),
      });
      expect(deliveries.map((d) => d.id)).toEqual([ys]);
      expect(more).toBe(false);
    },

    async 'says more when the scan window was full, not otherwise'(w) {
      const x = await addSubscription(w, {}, X);
      await addDue(w, x, [-3 * MIN, -2 * MIN, -MIN]);
      const few = await w.stores.deliveryQueue.claim({ limit: 1, leaseMs: MIN, defaultCap: 1, caps: new Map() });
      expect([few.deliveries.length, few.more]).toEqual([1, false]);
      await addDue(
        w,
        x,
        Array.from({ length: 110 }, (_, i) => -20 * MIN + i),
      );
      const many = await w.stores.deliveryQueue.claim({ limit: 1, leaseMs: MIN, defaultCap: 1, caps: new Map() });
      expect([many.deliveries.length, many.more]).toEqual([1, true]);
    },

    async 'stops the due deliveries of a disabled or deleted subscription instead of claiming them'(w) {
      const off = await addSubscription(w, {}, X);
      const gone = await addSubscription(w, {}, Y);
      const [a] = await addDue(w, off, [-MIN]);
      const [b] = await addDue(w, gone, [-MIN]);
      await w.patchSubscription(off.id, { enabled: false });
      await w.patchSubscription(gone.id, { deletedAt: new Date() });
      expect(await claimIds(w)).toEqual([]);
      for (const id of [a, b]) {
        expect(await w.delivery(id)).toMatchObject({
          status: 'failed',
          nextAttemptAt: null,
          error: 'retries stopped: subscription disabled or deleted',
        });
      }
    },

    async 'two claims side by side never share a delivery'(w) {
      const sub = await addSubscription(w);
      const ids = await addDue(
        w,
        sub,
        Array.from({ length: 12 }, (_, i) => -MIN + i),
      );
      const [one, two] = await Promise.all([
        claimIds(w, { limit: 8, defaultCap: 12 }),
        claimIds(w, { limit: 8, defaultCap: 12 }),
      ]);
      expect(one.filter((id) => two.includes(id))).toEqual([]);
      expect(sorted([...one, ...two])).toEqual(sorted(ids));
    },

    async 'inserts only new ids and answers them'(w) {
      const sub = await addSubscription(w);
      const first = newDelivery(sub);
      expect(await w.stores.deliveryQueue.insertMany([first])).toEqual(new Set([first.id]));
      const second = newDelivery(sub);
      expect(await w.stores.deliveryQueue.insertMany([first, second])).toEqual(new Set([second.id]));
      expect(await w.stores.deliveryQueue.insertMany([])).toEqual(new Set());
      expect(await w.delivery(first.id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        test: false,
        leaseToken: null,
        lockedUntil: null,
        orderKey: null,
      });
    },

    async 'schedules nothing for a test delivery, and holds one inserted under lease for leaseMs'(w) {
      const sub = await addSubscription(w);
      const test = newDelivery(sub, { eventId: null, test: true, leaseToken: crypto.randomUUID() });
      const held = newDelivery(sub, { leaseToken: crypto.randomUUID() });
      await w.stores.deliveryQueue.insertMany([test, held], { leaseMs: 5 * MIN });
      expect(await w.delivery(test.id)).toMatchObject({ test: true, nextAttemptAt: null, lockedUntil: null });
      expect((await w.delivery(held.id))?.nextAttemptAt).not.toBeNull();
      expect(await claimIds(w)).toEqual([]);
      await w.patchDelivery(held.id, { lockedUntil: fromNow(-1000) });
      expect(await claimIds(w)).toEqual([held.id]);
    },

    async 'releases only the leases it is given with their tokens and times'(w) {
      const sub = await addSubscription(w);
      const [id] = await addDue(w, sub, [-MIN]);
      const {
        deliveries: [claimed],
      } = await w.stores.deliveryQueue.claim({ limit: 1, leaseMs: MIN, defaultCap: 1, caps: new Map() });
      await w.stores.deliveryQueue.release([{ id, createdAt: claimed.createdAt, leaseToken: crypto.randomUUID() }]);
      expect(await claimIds(w)).toEqual([]);
      const elsewhen = new Date(claimed.createdAt.getTime() - 1000);
      await w.stores.deliveryQueue.release([{ id, createdAt: elsewhen, leaseToken: claimed.leaseToken }]);
      expect(await claimIds(w)).toEqual([]);
      await w.stores.deliveryQueue.release([{ id, createdAt: claimed.createdAt, leaseToken: claimed.leaseToken }]);
      expect(await w.delivery(id)).toMatchObject({ lockedUntil: null, leaseToken: null });
      expect(await claimIds(w)).toEqual([id]);
    },

    async 'answers the earliest future due time, or null'(w) {
      expect(await w.stores.deliveryQueue.nextDueAt()).toBeNull();
      const sub = await addSubscription(w);
      const [, soon] = await addDue(w, sub, [-MIN, 2 * MIN, 5 * MIN, null]);
      expect(await w.stores.deliveryQueue.nextDueAt()).toEqual((await w.delivery(soon))?.nextAttemptAt);
    },

    async "stops a subscription's scheduled attempts and counts them"(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const [a, b, finished] = await addDue(w, sub, [-MIN, MIN, null]);
      const [theirs] = await addDue(w, other, [-MIN]);
      expect(await w.stores.deliveryQueue.stopPending(sub.id, 'retries stopped: subscription disabled')).toBe(2);
      for (const id of [a, b]) {
        expect(await w.delivery(id)).toMatchObject({
          status: 'failed',
          nextAttemptAt: null,
          error: 'retries stopped: subscription disabled',
        });
      }
      expect(await w.delivery(finished)).toMatchObject({ status: 'pending', error: null });
      expect((await w.delivery(theirs))?.nextAttemptAt).not.toBeNull();
    },

    async 'counts the scheduled deliveries of a status, and dates the oldest scheduled one'(w) {
      expect(await w.stores.deliveryQueue.oldestScheduledAt()).toBeNull();
      const sub = await addSubscription(w);
      const [a, b, c] = await addDue(w, sub, [-MIN, MIN, null]);
      await w.patchDelivery(a, { status: 'failed', createdAt: fromNow(-60 * MIN) });
      await w.patchDelivery(c, { createdAt: fromNow(-120 * MIN) });
      expect(await w.stores.deliveryQueue.countScheduled('failed')).toBe(1);
      expect(await w.stores.deliveryQueue.countScheduled('pending')).toBe(1);
      expect(await w.stores.deliveryQueue.countScheduled('dead_letter')).toBe(0);
      expect(await w.stores.deliveryQueue.oldestScheduledAt()).toEqual((await w.delivery(a))?.createdAt);
      expect(b).toBeDefined();
    },

    async 'dates the oldest due delivery of an origin nobody is sending to'(w) {
      const down = await addSubscription(w, {}, 'https://down.example:443');
      const slow = await addSubscription(w, {}, 'https://slow.example:443');
      const neglected = await addSubscription(w, {}, 'https://neglected.example:443');
      const off = await addSubscription(w, { enabled: false }, 'https://off.example:443');
      expect(await w.stores.deliveryQueue.oldestUnservedDueAt()).toBeNull();
      await addDue(w, down, [30 * MIN]);
      const [, sending] = await addDue(w, slow, [-20 * MIN, -25 * MIN]);
      await w.patchDelivery(sending, { lockedUntil: fromNow(MIN), leaseToken: crypto.randomUUID() });
      const [oldest] = await addDue(w, neglected, [-7 * MIN, -3 * MIN, null]);
      await addDue(w, off, [-60 * MIN]);
      expect(await w.stores.deliveryQueue.oldestUnservedDueAt()).toEqual((await w.delivery(oldest))?.nextAttemptAt);
    },

    async 'sends an ordered key one delivery at a time, in order, the next made due when one ends'(w) {
      const sub = await addSubscription(w, { ordering: 'per_entity' });
      const [k1, k2, k1b] = [
        newDelivery(sub, { orderKey: 'entry:1' }),
        newDelivery(sub, { orderKey: 'entry:2' }),
        newDelivery(sub, { orderKey: 'entry:1' }),
      ];
      await w.stores.deliveryQueue.insertMany([k1, k2, k1b]);
      expect((await w.delivery(k1b.id))?.nextAttemptAt).toBeNull();
      const { deliveries } = await w.stores.deliveryQueue.claim({ limit: 10, leaseMs: MIN, defaultCap: 10, caps: new Map() });
      expect(deliveries.map((d) => d.id).sort()).toEqual(sorted([k1.id, k2.id]));
      expect(deliveries.find((d) => d.id === k1.id)?.orderKey).toBe('entry:1');
      // A later event of the key, inserted while the first is in flight, waits too.
      const k1c = newDelivery(sub, { orderKey: 'entry:1' });
      await w.stores.deliveryQueue.insertMany([k1c]);
      expect((await w.delivery(k1c.id))?.nextAttemptAt).toBeNull();
      const first = deliveries.find((d) => d.id === k1.id)!;
      expect(await w.stores.attempts.recordAttempt(attemptOf(first, true, { kind: 'succeeded' }))).toBe(true);
      expect(await claimIds(w)).toEqual([k1b.id]);
      expect((await w.delivery(k1c.id))?.nextAttemptAt).toBeNull();
    },

    async 'never claims an ordered delivery made due while an earlier one of its key is unfinished'(w) {
      const sub = await addSubscription(w, { ordering: 'per_entity' });
      const [a, b] = [newDelivery(sub, { orderKey: 'entry:1' }), newDelivery(sub, { orderKey: 'entry:1' })];
      await w.stores.deliveryQueue.insertMany([a, b]);
      await w.patchDelivery(b.id, { nextAttemptAt: fromNow(-MIN) });
      await w.patchDelivery(a.id, { nextAttemptAt: fromNow(MIN) });
      expect(await claimIds(w)).toEqual([]);
    },

    async 'releases a waiting ordered delivery whose earlier ones have all ended, and no other'(w) {
      const sub = await addSubscription(w, { ordering: 'per_entity' });
      const [a, b, c] = [1, 2, 3].map(() => newDelivery(sub, { orderKey: 'entry:1' }));
      await w.stores.deliveryQueue.insertMany([a, b, c]);
      expect(await w.stores.deliveryQueue.releaseWaiting()).toBe(0);
      await w.patchDelivery(a.id, { status: 'succeeded', nextAttemptAt: null, attempts: 1 });
      // Scoped to other keys (another key of the subscription, the same key of another one): nothing.
      expect(await w.stores.deliveryQueue.releaseWaiting([])).toBe(0);
      expect(
        await w.stores.deliveryQueue.releaseWaiting([
          { subscriptionId: sub.id, orderKey: 'entry:2' },
          { subscriptionId: crypto.randomUUID(), orderKey: 'entry:1' },
        ]),
      ).toBe(0);
      expect(await w.stores.deliveryQueue.releaseWaiting([{ subscriptionId: sub.id, orderKey: 'entry:1' }])).toBe(1);
      expect((await w.delivery(b.id))?.nextAttemptAt).not.toBeNull();
      expect((await w.delivery(c.id))?.nextAttemptAt).toBeNull();
    },
  },
});
