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
import { deadLetterMessage } from '../attempts/events.ts';
import { bucketPercentiles, durationBucket } from './stats-rollup.ts';

// DeliveryReadStore (the API's records and statistics), against its fake and Postgres.
const page = { page: 1, pageSize: 2 };
const HOURLY = { bucketMs: 60 * MIN, buckets: 24 };
const HOUR = 60 * MIN;
/** The start of the current hour of the clock, and the statistics' `since` of a window of `ms` (whole hours, the current one last). */
const thisHour = () => Math.floor(Date.now() / HOUR) * HOUR;
const sinceOf = (ms: number) => new Date(thisHour() + HOUR - ms);

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
      const first = await w.stores.deliveryReads.list(sub.organizationId, { subscriptionId: sub.id }, page);
      expect(first).toMatchObject({ page: 1, pageSize: 2, total: 3 });
      expect(first.data.map((r) => r.id)).toEqual([ids[2], ids[1]]);
      const second = await w.stores.deliveryReads.list(sub.organizationId, { subscriptionId: sub.id }, { page: 2, pageSize: 2 });
      expect(second.data.map((r) => r.id)).toEqual([ids[0]]);
      expect(second.total).toBe(3);
      const dead = await w.stores.deliveryReads.list(sub.organizationId, { subscriptionId: sub.id, status: 'dead_letter' }, page);
      expect([dead.total, dead.data.map((r) => r.id)]).toEqual([1, [ids[0]]]);
      expect((await w.stores.deliveryReads.list(OTHER_ORG, { subscriptionId: sub.id }, page)).total).toBe(0);
    },

    async "searches the organization's live subscriptions by subscription, status, event name and createdAt window"(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const deleted = await addSubscription(w);
      const foreign = await addSubscription(w, { organizationId: OTHER_ORG });
      const [a, b, c] = await addDue(w, sub, [null, null, null]);
      const [d] = await addDue(w, other, [null]);
      await addDue(w, deleted, [null]);
      await addDue(w, foreign, [null]);
      await w.stores.subscriptions.softDelete(deleted.id);
      const at = (minutes: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + minutes * MIN);
      await w.patchDelivery(a, { createdAt: at(-30), status: 'failed' });
      await w.patchDelivery(b, { createdAt: at(-20), status: 'failed', eventName: 'entry.updated' });
      await w.patchDelivery(c, { createdAt: at(-10), status: 'succeeded' });
      await w.patchDelivery(d, { createdAt: at(-5), status: 'failed' });
      const ids = async (filter: Parameters<typeof w.stores.deliveryReads.list>[1]) =>
        (await w.stores.deliveryReads.list(sub.organizationId, filter, { page: 1, pageSize: 10 })).data.map((r) => r.id);
      expect(await ids({})).toEqual([d, c, b, a]);
      expect(await ids({ status: 'failed' })).toEqual([d, b, a]);
      expect(await ids({ status: 'failed', subscriptionId: sub.id })).toEqual([b, a]);
      expect(await ids({ eventName: 'entry.updated' })).toEqual([b]);
      // since included, until not.
      expect(await ids({ since: at(-20), until: at(-10) })).toEqual([b]);
      expect(await ids({ subscriptionId: deleted.id })).toEqual([]);
      expect(await ids({ subscriptionId: foreign.id })).toEqual([]);
    },

    async 'counts the undelivered by subscription and status, with the oldest, without test deliveries or succeeded'(w) {
      const sub = await addSubscription(w);
      const other = await addSubscription(w);
      const [a, b, c, e] = await addDue(w, sub, [null, null, null, null]);
      const [d] = await addDue(w, other, [null]);
      const test = newDelivery(sub, { eventId: null, test: true, eventName: 'webhook.test' });
      await w.stores.deliveryQueue.insertMany([test]);
      await w.patchDelivery(test.id, { status: 'failed' });
      const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 40 * MIN);
      await w.patchDelivery(a, { createdAt: old, status: 'failed' });
      await w.patchDelivery(b, { status: 'dead_letter' });
      await w.patchDelivery(c, { status: 'succeeded' });
      await w.patchDelivery(e, { status: 'failed', createdAt: fromNow(-MIN) });
      const counts = await w.stores.deliveryReads.undelivered(sub.organizationId, {});
      const sorted = counts
        .map((x) => ({ ...x, oldestCreatedAt: x.subscriptionId === sub.id && x.status === 'failed' ? x.oldestCreatedAt : null }))
        .sort((x, y) => `${x.subscriptionId}${x.status}`.localeCompare(`${y.subscriptionId}${y.status}`));
      expect(sorted).toEqual(
        [
          { subscriptionId: sub.id, status: 'failed', count: 2, oldestCreatedAt: old },
          { subscriptionId: sub.id, status: 'dead_letter', count: 1, oldestCreatedAt: null },
          { subscriptionId: other.id, status: 'pending', count: 1, oldestCreatedAt: null },
        ].sort((x, y) => `${x.subscriptionId}${x.status}`.localeCompare(`${y.subscriptionId}${y.status}`)),
      );
      expect(d).toBeDefined();
      const windowed = await w.stores.deliveryReads.undelivered(sub.organizationId, {
        subscriptionId: sub.id,
        until: fromNow(-10 * MIN),
      });
      expect(windowed).toEqual([{ subscriptionId: sub.id, status: 'failed', count: 1, oldestCreatedAt: old }]);
      expect(await w.stores.deliveryReads.undelivered(OTHER_ORG, {})).toEqual([]);
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
      const [listed] = (await w.stores.deliveryReads.list(sub.organizationId, { subscriptionId: sub.id }, page)).data;
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
      // Times in this hour (a few seconds ahead of the clock just after the hour turned: still the last bucket).
      const second = Math.max(Math.floor(Date.now() / 1000) * 1000, thisHour() + 5000);
      const at = (ms: number) => new Date(second + ms);
      await w.stores.attempts.recordAttempts([
        attemptOf(by(a), true, { kind: 'succeeded' }, { durationMs: 40, attemptedAt: at(-3000) }),
        attemptOf(by(b), true, { kind: 'succeeded' }, { durationMs: 10, attemptedAt: at(-2000) }),
        attemptOf(by(c), false, { kind: 'retry', at: fromNow(MIN) }, { durationMs: 30, attemptedAt: at(-1000) }),
        attemptOf(by(d), false, { kind: 'final_failure' }, { durationMs: 20, attemptedAt: at(-4000) }),
      ]);
      const since = sinceOf(24 * HOUR);
      const stats = await w.stores.deliveryReads.stats(sub.id, since, HOURLY);
      const empty = { byStatus: {}, p50: null, p99: null };
      expect(stats).toEqual({
        byStatus: { succeeded: 2, failed: 2 },
        attempts: { total: 4, succeeded: 2, failed: 2, p50: 20, p95: 40, p99: 40 },
        lastSuccessAt: at(-2000),
        lastFailureAt: at(-1000),
        pauses: { count: 0, ms: 0 },
        series: [...Array<typeof empty>(23).fill(empty), { byStatus: { succeeded: 2, failed: 2 }, p50: 20, p99: 40 }],
      });
      // A window that starts after them reads none of them.
      const later = await w.stores.deliveryReads.stats(sub.id, new Date(thisHour() + HOUR), HOURLY);
      expect(later.attempts).toEqual({ total: 0, succeeded: 0, failed: 0, p50: null, p95: null, p99: null });
      expect([later.byStatus, later.lastSuccessAt, later.lastFailureAt]).toEqual([{}, null, null]);
    },

    async 'answers from its rollup what a scan of the deliveries and attempts gives, after retries, redeliveries, stops and two recorders at once'(
      w,
    ) {
      const [a, b] = [await addSubscription(w), await addSubscription(w)];
      const idsA = await addDue(w, a, [-MIN, -MIN, -MIN, -MIN, -MIN, -MIN, -MIN, -MIN]);
      const idsB = await addDue(w, b, [-MIN, -MIN, -MIN, -MIN]);
      const test = newDelivery(a, { eventId: null, test: true, eventName: 'webhook.test' });
      await w.stores.deliveryQueue.insertMany([test]);
      await addDue(w, a, [null]); // stays pending
      const [later] = await addDue(w, b, [MIN]); // due later: stopped unsent when b is disabled (pending -> failed)
      // A disabled subscription's due delivery: the claim stops it (an orphan, pending -> failed).
      const c = await addSubscription(w);
      const [orphan] = await addDue(w, c, [-MIN]);
      await w.patchSubscription(c.id, { enabled: false });
      const claim = async () =>
        (await w.stores.deliveryQueue.claim({ limit: 20, leaseMs: MIN, defaultCap: 20, caps: new Map() })).deliveries;
      const first = await claim();
      const by = (list: typeof first, id: string) => list.find((d) => d.id === id)!;
      const now = Date.now();
      const ok = (d: (typeof first)[number], ms: number) =>
        attemptOf(d, true, { kind: 'succeeded' }, { durationMs: ms, attemptedAt: new Date(now - ms) });
      const fail = (
        d: (typeof first)[number],
        ms: number,
        decision: Parameters<typeof attemptOf>[2] = { kind: 'retry', at: fromNow(-MIN) },
      ) => attemptOf(d, false, decision, { durationMs: ms, attemptedAt: new Date(now - ms) });
      // Two recorders at once, each with both subscriptions' deliveries (in opposite orders): they share the rollup's rows.
      await Promise.all([
        w.stores.attempts.recordAttempts([
          ok(by(first, idsA[0]), 12),
          fail(by(first, idsA[1]), 40),
          fail(by(first, idsA[2]), 5000),
          ok(by(first, idsB[0]), 3),
          fail(by(first, idsB[1]), 250),
        ]),
        w.stores.attempts.recordAttempts([
          fail(by(first, idsB[2]), 7),
          ok(by(first, idsB[3]), 90),
          ok(by(first, idsA[3]), 1200),
          fail(by(first, idsA[4]), 31, { kind: 'final_failure' }),
          fail(by(first, idsA[5]), 64),
        ]),
      ]);
      const dead = fail(by(first, idsA[6]), 130_000, { kind: 'dead_letter' });
      expect(await w.stores.attempts.recordAttempt({ ...dead, deadLetter: deadLetterMessage(dead) })).toBe(true);
      expect(await w.stores.attempts.recordAttempt(ok(by(first, idsA[7]), 33))).toBe(true);
      // The retries: two succeed, one fails again; the one of b stays failed, due later.
      const second = await claim();
      expect(second.map((d) => d.id).sort()).toEqual([idsA[1], idsA[2], idsA[5], idsB[1], idsB[2]].sort());
      await w.stores.attempts.recordAttempts([
        ok(by(second, idsA[1]), 17),
        fail(by(second, idsA[2]), 66),
        ok(by(second, idsB[1]), 18),
        fail(by(second, idsB[2]), 9, { kind: 'retry', at: fromNow(MIN) }),
        fail(by(second, idsA[5]), 64, { kind: 'retry', at: fromNow(MIN) }),
      ]);
      // A redelivery of a succeeded delivery that fails, and of the dead letter that succeeds.
      for (const [id, okay] of [
        [idsA[0], false],
        [idsA[6], true],
      ] as const) {
        const leased = await w.stores.recovery.leaseOne(a.id, id, MIN);
        expect(leased).toBeDefined();
        const item = okay ? ok(leased!, 21) : fail(leased!, 22, { kind: 'final_failure' });
        expect(await w.stores.attempts.recordAttempt(item)).toBe(true);
      }
      // Disabling b stops its retry (failed, nothing scheduled); a's last retry is stopped too.
      expect(await w.stores.deliveryQueue.stopPending(b.id, 'retries stopped')).toBe(2);
      expect(await w.stores.deliveryQueue.stopPending(a.id, 'retries stopped')).toBe(2);

      // The scan: every delivery of the subscription (test ones left out) and its attempt log.
      const scan = async (sub: string, ids: string[]) => {
        const byStatus: Record<string, number> = {};
        const durations: number[] = [];
        let succeeded = 0;
        for (const id of ids) {
          const row = (await w.delivery(id))!;
          expect(row.subscriptionId).toBe(sub);
          byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
          for (const attempt of await w.stores.attempts.listFor(id)) {
            durations.push(attempt.durationMs);
            if (attempt.outcome === 'succeeded') succeeded += 1;
          }
        }
        const counts: number[] = [];
        for (const ms of durations) {
          const i = durationBucket(ms);
          while (counts.length <= i) counts.push(0);
          counts[i] += 1;
        }
        const [p50, p95, p99] = bucketPercentiles(counts, [0.5, 0.95, 0.99]);
        return {
          byStatus,
          attempts: { total: durations.length, succeeded, failed: durations.length - succeeded, p50, p95, p99 },
        };
      };
      const pendingA = (
        await w.stores.deliveryReads.list(
          a.organizationId,
          { subscriptionId: a.id, status: 'pending' },
          { page: 1, pageSize: 10 },
        )
      ).data;
      const since = sinceOf(24 * HOUR);
      for (const [sub, ids] of [
        [a.id, [...idsA, ...pendingA.map((d) => d.id).filter((id) => id !== test.id)]],
        [b.id, [...idsB, later]],
        [c.id, [orphan]],
      ] as const) {
        const stats = await w.stores.deliveryReads.stats(sub, since, HOURLY);
        const expected = await scan(sub, [...new Set(ids)]);
        expect({ byStatus: stats.byStatus, attempts: stats.attempts }).toEqual(expected);
        const total = stats.series.reduce((n, x) => n + Object.values(x.byStatus).reduce((m, y) => m + y, 0), 0);
        expect(total).toBe(Object.values(expected.byStatus).reduce((m, y) => m + y, 0));
      }
      // Spelled out for a: 9 deliveries (the test one not counted), 13 attempts; p99 is the 130 s one, in the last bucket.
      const statsA = await w.stores.deliveryReads.stats(a.id, since, HOURLY);
      expect(statsA.byStatus).toEqual({ pending: 1, succeeded: 4, failed: 4 });
      expect(statsA.attempts).toMatchObject({ total: 13, succeeded: 5, failed: 8, p99: 126_976 });
      expect((await w.stores.deliveryReads.stats(b.id, since, HOURLY)).byStatus).toEqual({ succeeded: 3, failed: 2 });
      expect((await w.stores.deliveryReads.stats(c.id, since, HOURLY)).byStatus).toEqual({ failed: 1 });
    },

    async "cuts the window into a series: deliveries by the bucket they were created in, latency by the attempt's"(w) {
      const sub = await addSubscription(w);
      const [x, y, z] = await addDue(w, sub, [-MIN, -MIN, -MIN]);
      const { deliveries } = await w.stores.deliveryQueue.claim({ limit: 10, leaseMs: MIN, defaultCap: 10, caps: new Map() });
      const by = (id: string) => deliveries.find((d) => d.id === id)!;
      const since = sinceOf(24 * HOUR);
      const after = (ms: number) => new Date(since.getTime() + ms);
      await w.stores.attempts.recordAttempts([
        attemptOf(by(x), true, { kind: 'succeeded' }, { durationMs: 100, attemptedAt: after(10 * MIN) }),
        attemptOf(
          by(y),
          false,
          { kind: 'retry', at: fromNow(MIN) },
          { durationMs: 7, attemptedAt: after(22 * 60 * MIN + 20 * MIN) },
        ),
        attemptOf(by(z), true, { kind: 'succeeded' }, { durationMs: 9, attemptedAt: after(23 * 60 * MIN + 30 * MIN) }),
      ]);
      await w.patchDelivery(x, { createdAt: after(5 * MIN) });
      for (const id of [y, z]) await w.patchDelivery(id, { createdAt: after(22 * 60 * MIN + 10 * MIN) });
      const stats = await w.stores.deliveryReads.stats(sub.id, since, HOURLY);
      expect(stats.series).toHaveLength(24);
      expect(stats.series[0]).toEqual({ byStatus: { succeeded: 1 }, p50: 100, p99: 100 });
      expect(stats.series[22]).toEqual({ byStatus: { failed: 1, succeeded: 1 }, p50: 7, p99: 7 });
      expect(stats.series[23]).toEqual({ byStatus: {}, p50: 9, p99: 9 });
      expect(
        stats.series.filter((b, i) => ![0, 22, 23].includes(i) && (b.p50 !== null || Object.keys(b.byStatus).length)),
      ).toEqual([]);
      expect(stats.attempts).toMatchObject({ total: 3, succeeded: 2, p50: 9, p99: 100 });
      // Daily buckets of a week: all three in the last day.
      const week = await w.stores.deliveryReads.stats(sub.id, sinceOf(7 * 24 * HOUR), {
        bucketMs: 24 * 60 * MIN,
        buckets: 7,
      });
      expect(week.series[6]).toEqual({ byStatus: { succeeded: 2, failed: 1 }, p50: 9, p99: 100 });
      expect(week.series[5]).toEqual({ byStatus: {}, p50: null, p99: null });
    },
  },
});
