import { expect } from 'vitest';
import { DELIVERY_ATTEMPT_FIELDS } from '@cluster/contracts';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import {
  addDue,
  addSubscription,
  attemptOf,
  fakeDeliveryWorld,
  fromNow,
  MIN,
  newDelivery,
  postgresDeliveryWorld,
  type DeliveryWorld,
} from '../../shared/contract-world.ts';
import type { ClaimedDelivery } from '../deliveries/queue-store.ts';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import type { DeadLetterMessage } from './store.ts';

// AttemptStore, against its fake (fake-store.ts, over the fake deliveries and subscriptions) and Postgres:
// each attempt moves its delivery to its next step, fenced by the lease, and keeps the subscription's health.

/** Claims `n` fresh due deliveries of `sub`, in the order they were made. */
async function claimNew(w: DeliveryWorld, sub: SubscriptionRow, n = 1): Promise<ClaimedDelivery[]> {
  const ids = await addDue(
    w,
    sub,
    Array.from({ length: n }, (_, i) => -MIN + i),
  );
  const { deliveries } = await w.stores.deliveryQueue.claim({ limit: n, leaseMs: MIN, defaultCap: n, caps: new Map() });
  return ids.map((id) => deliveries.find((d) => d.id === id)!);
}

/** The subscription's health columns as stored. */
async function health(w: DeliveryWorld, sub: SubscriptionRow) {
  const row = await w.stores.subscriptions.find(sub.organizationId, sub.id);
  return {
    consecutiveFailures: row?.consecutiveFailures,
    failingSince: row?.failingSince,
    failingNotifiedAt: row?.failingNotifiedAt,
  };
}

const deadLetterOf = (d: ClaimedDelivery): DeadLetterMessage => ({
  id: d.id,
  eventName: d.eventName,
  deliveryId: d.id,
  subscriptionId: d.subscriptionId,
  organizationId: d.organizationId,
  destinationUrl: d.destinationUrl,
  attempts: d.attempts + 1,
  firstAttemptAt: new Date().toISOString(),
  deadLetteredAt: new Date().toISOString(),
  lastError: { error: 'HTTP 500', responseCode: 500, responseBody: 'boom' },
  envelope: {},
});

describeStoreContract<DeliveryWorld>('AttemptStore', {
  database: useContractDatabase('delivery', migrations),
  fake: fakeDeliveryWorld,
  postgres: postgresDeliveryWorld,
  cases: {
    async 'records a success: the delivery ends succeeded, its lease let go, its attempt logged'(w) {
      const sub = await addSubscription(w);
      const [d] = await claimNew(w, sub);
      const at = fromNow(-1000);
      expect(
        await w.stores.attempts.recordAttempt(attemptOf(d, true, { kind: 'succeeded' }, { attemptedAt: at, durationMs: 42 })),
      ).toBe(true);
      expect(await w.delivery(d.id)).toMatchObject({
        status: 'succeeded',
        attempts: 1,
        responseCode: 200,
        responseBody: 'ok',
        error: null,
        durationMs: 42,
        nextAttemptAt: null,
        firstAttemptAt: at,
        lastAttemptAt: at,
        lockedUntil: null,
        leaseToken: null,
      });
      const log = await w.stores.attempts.listFor(d.id);
      expect(log).toEqual([
        { attempt: 1, outcome: 'succeeded', responseCode: 200, responseBody: 'ok', error: null, durationMs: 42, attemptedAt: at },
      ]);
      expect(Object.keys(log[0]).sort()).toEqual([...DELIVERY_ATTEMPT_FIELDS].sort());
    },

    async 'schedules a retry, keeps the first attempt time, and logs the attempts in order'(w) {
      const sub = await addSubscription(w);
      const [d] = await claimNew(w, sub);
      const first = fromNow(-2000);
      const retryAt = fromNow(-1);
      expect(
        await w.stores.attempts.recordAttempt(attemptOf(d, false, { kind: 'retry', at: retryAt }, { attemptedAt: first })),
      ).toBe(true);
      expect(await w.delivery(d.id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        responseCode: 500,
        error: 'HTTP 500',
        nextAttemptAt: retryAt,
        firstAttemptAt: first,
        leaseToken: null,
      });
      const {
        deliveries: [again],
      } = await w.stores.deliveryQueue.claim({ limit: 1, leaseMs: MIN, defaultCap: 1, caps: new Map() });
      expect([again.id, again.attempts, again.firstAttemptAt]).toEqual([d.id, 1, first]);
      const second = fromNow(-1000);
      expect(await w.stores.attempts.recordAttempt(attemptOf(again, true, { kind: 'succeeded' }, { attemptedAt: second }))).toBe(
        true,
      );
      expect(await w.delivery(d.id)).toMatchObject({
        status: 'succeeded',
        attempts: 2,
        firstAttemptAt: first,
        lastAttemptAt: second,
      });
      expect((await w.stores.attempts.listFor(d.id)).map((a) => [a.attempt, a.outcome])).toEqual([
        [1, 'failed'],
        [2, 'succeeded'],
      ]);
    },

    async 'records nothing once the lease was lost'(w) {
      const sub = await addSubscription(w);
      const [d] = await claimNew(w, sub);
      const stale = { ...d, leaseToken: crypto.randomUUID() };
      expect(await w.stores.attempts.recordAttempt(attemptOf(stale, true, { kind: 'succeeded' }))).toBe(false);
      expect(await w.stores.attempts.recordAttempts([attemptOf(stale, true, { kind: 'succeeded' })])).toEqual(new Set());
      expect(await w.delivery(d.id)).toMatchObject({ status: 'pending', attempts: 0, leaseToken: d.leaseToken });
      expect(await w.stores.attempts.listFor(d.id)).toEqual([]);
      expect(await w.stores.attempts.recordAttempt(attemptOf(d, true, { kind: 'succeeded' }))).toBe(true);
      expect(await w.stores.attempts.recordAttempt(attemptOf(d, true, { kind: 'succeeded' }))).toBe(false);
      expect(await w.stores.attempts.listFor(d.id)).toHaveLength(1);
    },

    async 'schedules no retry for a subscription disabled or deleted meanwhile'(w) {
      const off = await addSubscription(w);
      const gone = await addSubscription(w);
      const [a] = await claimNew(w, off);
      const [b] = await claimNew(w, gone);
      await w.patchSubscription(off.id, { enabled: false });
      await w.stores.subscriptions.softDelete(gone.id);
      const retry = { kind: 'retry', at: fromNow(MIN) } as const;
      expect(await w.stores.attempts.recordAttempt(attemptOf(a, false, retry))).toBe(true);
      expect(await w.stores.attempts.recordAttempts([attemptOf(b, false, retry)])).toEqual(new Set([b.id]));
      for (const id of [a.id, b.id])
        expect(await w.delivery(id)).toMatchObject({ status: 'failed', nextAttemptAt: null, attempts: 1 });
    },

    async 'ends a delivery dead-lettered with its message, or failed for good, scheduling nothing'(w) {
      const sub = await addSubscription(w);
      const [dead, gone, final] = await claimNew(w, sub, 3);
      await expect(w.stores.attempts.recordAttempt(attemptOf(dead, false, { kind: 'dead_letter' }))).rejects.toThrow(
        'a dead letter is recorded with its message',
      );
      expect(
        await w.stores.attempts.recordAttempt({
          ...attemptOf(dead, false, { kind: 'dead_letter' }),
          deadLetter: deadLetterOf(dead),
        }),
      ).toBe(true);
      expect(await w.stores.attempts.recordAttempt(attemptOf(gone, false, { kind: 'gone' }))).toBe(true);
      expect(await w.stores.attempts.recordAttempt(attemptOf(final, false, { kind: 'final_failure' }))).toBe(true);
      expect(await w.delivery(dead.id)).toMatchObject({ status: 'dead_letter', nextAttemptAt: null, leaseToken: null });
      for (const d of [gone, final]) expect(await w.delivery(d.id)).toMatchObject({ status: 'failed', nextAttemptAt: null });
    },

    async "counts a subscription's failed attempts in a row, failing since the first; a success ends the run and its notice"(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const [a, b, c] = await claimNew(w, sub, 3);
      const [theirs] = await claimNew(w, other);
      const first = fromNow(-3000);
      await w.stores.attempts.recordAttempt(attemptOf(a, false, { kind: 'retry', at: fromNow(MIN) }, { attemptedAt: first }));
      await w.stores.attempts.recordAttempt(attemptOf(b, false, { kind: 'final_failure' }, { attemptedAt: fromNow(-2000) }));
      expect(await health(w, sub)).toEqual({ consecutiveFailures: 2, failingSince: first, failingNotifiedAt: null });
      await w.stores.subscriptions.claimFailingNotices(2);
      expect((await health(w, sub)).failingNotifiedAt).not.toBeNull();
      await w.stores.attempts.recordAttempt(attemptOf(theirs, true, { kind: 'succeeded' }));
      expect((await health(w, sub)).consecutiveFailures).toBe(2);
      await w.stores.attempts.recordAttempt(attemptOf(c, true, { kind: 'succeeded' }));
      expect(await health(w, sub)).toEqual({ consecutiveFailures: 0, failingSince: null, failingNotifiedAt: null });
      expect(await health(w, other)).toEqual({ consecutiveFailures: 0, failingSince: null, failingNotifiedAt: null });
    },

    async 'records a batch, each attempt fenced by its own lease, and answers the ids it recorded'(w) {
      const sub = await addSubscription(w);
      const [a, b, c] = await claimNew(w, sub, 3);
      const at = fromNow(-1000);
      const retryAt = fromNow(MIN);
      const recorded = await w.stores.attempts.recordAttempts([
        attemptOf(a, true, { kind: 'succeeded' }, { attemptedAt: at }),
        attemptOf({ ...b, leaseToken: crypto.randomUUID() }, true, { kind: 'succeeded' }),
        attemptOf(c, false, { kind: 'retry', at: retryAt }, { attemptedAt: at }),
      ]);
      expect(recorded).toEqual(new Set([a.id, c.id]));
      expect(await w.delivery(a.id)).toMatchObject({ status: 'succeeded', attempts: 1, firstAttemptAt: at, leaseToken: null });
      expect(await w.delivery(b.id)).toMatchObject({ status: 'pending', attempts: 0, leaseToken: b.leaseToken });
      expect(await w.delivery(c.id)).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: retryAt });
      expect((await w.stores.attempts.listFor(c.id)).map((r) => [r.attempt, r.outcome, r.responseCode])).toEqual([
        [1, 'failed', 500],
      ]);
      expect(await w.stores.attempts.recordAttempts([])).toEqual(new Set());
    },

    async 'keeps the health of each subscription of a batch: any success in it ends the run, else its failures add up'(w) {
      const mixed = await addSubscription(w);
      const failing = await addSubscription(w);
      await w.patchSubscription(mixed.id, {
        consecutiveFailures: 4,
        failingSince: fromNow(-60 * MIN),
        failingNotifiedAt: fromNow(-MIN),
      });
      const since = fromNow(-30 * MIN);
      await w.patchSubscription(failing.id, { consecutiveFailures: 1, failingSince: since });
      const [m1, m2] = await claimNew(w, mixed, 2);
      const [f1, f2] = await claimNew(w, failing, 2);
      const retry = { kind: 'retry', at: fromNow(MIN) } as const;
      await w.stores.attempts.recordAttempts([
        attemptOf(m1, true, { kind: 'succeeded' }, { attemptedAt: fromNow(-2000) }),
        attemptOf(m2, false, retry, { attemptedAt: fromNow(-1000) }),
        attemptOf(f1, false, retry),
        attemptOf(f2, false, retry),
      ]);
      expect(await health(w, mixed)).toEqual({ consecutiveFailures: 0, failingSince: null, failingNotifiedAt: null });
      expect(await health(w, failing)).toEqual({ consecutiveFailures: 3, failingSince: since, failingNotifiedAt: null });
      const fresh = await addSubscription(w);
      const [x, y] = await claimNew(w, fresh, 2);
      const first = fromNow(-5000);
      await w.stores.attempts.recordAttempts([
        attemptOf(x, false, retry, { attemptedAt: fromNow(-1000) }),
        attemptOf(y, false, retry, { attemptedAt: first }),
      ]);
      expect(await health(w, fresh)).toEqual({ consecutiveFailures: 2, failingSince: first, failingNotifiedAt: null });
    },

    async "records a receiver's pause: no failure of the subscription, no backoff step, the subscription paused"(w) {
      const sub = await addSubscription(w, { maxInFlight: 2 });
      await w.stores.subscriptions.syncThrottle(sub.id, true);
      const [d, e] = await claimNew(w, sub, 2);
      expect(d.slotted).toBe(true);
      const until = fromNow(2000);
      const paused = { kind: 'paused', at: until, until } as const;
      const throttled = { ...attemptOf(d, false, paused), result: { ...attemptOf(d, false, paused).result, responseCode: 429 } };
      expect(await w.stores.attempts.recordAttempts([throttled])).toEqual(new Set([d.id]));
      // And the single-row path (a dead letter's) with the same decision.
      expect(await w.stores.attempts.recordAttempt(attemptOf(e, false, paused))).toBe(true);
      expect(await health(w, sub)).toEqual({ consecutiveFailures: 0, failingSince: null, failingNotifiedAt: null });
      const row = await w.stores.subscriptions.find(sub.organizationId, sub.id);
      expect(row?.pausedUntil?.getTime()).toBe(until.getTime());
      const stored = await w.delivery(d.id);
      expect([stored?.status, stored?.attempts, stored?.throttledAttempts, stored?.nextAttemptAt?.getTime()]).toEqual([
        'failed',
        1,
        1,
        until.getTime(),
      ]);
      // Both slots given back: the third delivery is claimed once the pause is over (here: lifted by hand).
      await w.stores.subscriptions.update(sub.id, { pausedUntil: null });
      const [f] = await addDue(w, sub, [-MIN]);
      const { deliveries } = await w.stores.deliveryQueue.claim({ limit: 10, leaseMs: MIN, defaultCap: 10, caps: new Map() });
      expect(deliveries.map((x) => x.id)).toEqual([f]);
    },

    async 'makes the next delivery of an ordered key due when a batch ends one'(w) {
      const sub = await addSubscription(w, { ordering: 'per_entity' });
      const [k1, k1b] = [newDelivery(sub, { orderKey: 'entry:1' }), newDelivery(sub, { orderKey: 'entry:1' })];
      await w.stores.deliveryQueue.insertMany([k1, k1b]);
      const {
        deliveries: [first],
      } = await w.stores.deliveryQueue.claim({ limit: 10, leaseMs: MIN, defaultCap: 10, caps: new Map() });
      expect(first.id).toBe(k1.id);
      expect((await w.delivery(k1b.id))?.nextAttemptAt).toBeNull();
      expect(await w.stores.attempts.recordAttempts([attemptOf(first, false, { kind: 'final_failure' })])).toEqual(
        new Set([k1.id]),
      );
      expect((await w.delivery(k1b.id))?.nextAttemptAt).not.toBeNull();
    },
  },
});
