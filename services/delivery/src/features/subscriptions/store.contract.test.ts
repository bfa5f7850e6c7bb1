import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import {
  addSubscription,
  fakeDeliveryWorld,
  fromNow,
  lockTurns,
  MIN,
  postgresDeliveryWorld,
  type DeliveryWorld,
} from '../../shared/contract-world.ts';
import { ORG, OTHER_ORG } from '../../shared/test-fixtures.ts';
import type { SubscriptionRow } from './store.ts';

// SubscriptionStore, against its fake (fake-store.ts) and Postgres.
const sortedIds = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

describeStoreContract<DeliveryWorld>('SubscriptionStore', {
  database: useContractDatabase('delivery', migrations),
  fake: fakeDeliveryWorld,
  postgres: postgresDeliveryWorld,
  cases: {
    async 'inserts a subscription healthy, never rotated nor disabled, and finds it in its organization only'(w) {
      const before = Date.now() - 1000;
      const user = randomUUID();
      const sub = await addSubscription(w, { description: 'to R', createdByUserId: user });
      expect(sub).toMatchObject({
        organizationId: ORG,
        eventNames: ['entry.created'],
        enabled: true,
        description: 'to R',
        ordering: 'none',
        signatureScheme: 'hmac-sha256',
        publicKey: null,
        secretSealed: 'sealed',
        createdByUserId: user,
        previousSecretSealed: null,
        previousSecretUntil: null,
        consecutiveFailures: 0,
        failingSince: null,
        failingNotifiedAt: null,
        disabledReason: null,
        disabledAt: null,
        deletedAt: null,
      });
      expect(sub.createdAt.getTime()).toBeGreaterThan(before);
      expect(sub.updatedAt).toEqual(sub.createdAt);
      expect(await w.stores.subscriptions.find(ORG, sub.id)).toEqual(sub);
      expect(await w.stores.subscriptions.find(OTHER_ORG, sub.id)).toBeUndefined();
      expect(await w.stores.subscriptions.find(ORG, randomUUID())).toBeUndefined();
      expect(await w.stores.subscriptions.find(ORG, 'not-a-uuid')).toBeUndefined();
    },

    async 'keeps an ed25519 subscription’s scheme and public key, and a rotation’s new public key'(w) {
      const sub = await addSubscription(w, { signatureScheme: 'ed25519', publicKey: 'whpk_first', secretSealed: 'sealed-1' });
      expect(sub).toMatchObject({ signatureScheme: 'ed25519', publicKey: 'whpk_first' });
      const rotated = await w.stores.subscriptions.update(sub.id, {
        publicKey: 'whpk_second',
        secretSealed: 'sealed-2',
        previousSecretSealed: 'sealed-1',
        previousSecretUntil: fromNow(MIN),
      });
      expect(rotated).toMatchObject({ signatureScheme: 'ed25519', publicKey: 'whpk_second', previousSecretSealed: 'sealed-1' });
      expect(await w.stores.subscriptions.find(ORG, sub.id)).toEqual(rotated);
    },

    async 'lists the live subscriptions of an organization newest first, a page at a time, enabled or not if asked'(w) {
      const [a, b, c] = [await addSubscription(w), await addSubscription(w), await addSubscription(w)];
      const gone = await addSubscription(w);
      await addSubscription(w, { organizationId: OTHER_ORG });
      for (const [i, s] of [a, b, c, gone].entries()) await w.patchSubscription(s.id, { createdAt: fromNow((i - 10) * MIN) });
      await w.patchSubscription(b.id, { enabled: false });
      await w.stores.subscriptions.softDelete(gone.id);
      const first = await w.stores.subscriptions.list(ORG, {}, { page: 1, pageSize: 2 });
      expect([first.total, first.data.map((r) => r.id)]).toEqual([3, [c.id, b.id]]);
      const second = await w.stores.subscriptions.list(ORG, {}, { page: 2, pageSize: 2 });
      expect([second.total, second.data.map((r) => r.id)]).toEqual([3, [a.id]]);
      const on = await w.stores.subscriptions.list(ORG, { enabled: true }, { page: 1, pageSize: 10 });
      expect(on.data.map((r) => r.id)).toEqual([c.id, a.id]);
      const off = await w.stores.subscriptions.list(ORG, { enabled: false }, { page: 1, pageSize: 10 });
      expect(off.data.map((r) => r.id)).toEqual([b.id]);
    },

    async 'updates the columns it is given, stamps updatedAt, and answers the row'(w) {
      const sub = await addSubscription(w);
      await w.patchSubscription(sub.id, { updatedAt: fromNow(-MIN) });
      const until = fromNow(MIN);
      const updated = await w.stores.subscriptions.update(sub.id, {
        destinationUrl: 'https://s.example.com:443/in',
        destinationOrigin: 'https://s.example.com:443',
        eventNames: ['entry.created', 'entry.updated'],
        previousSecretSealed: 'sealed',
        previousSecretUntil: until,
        secretSealed: 'sealed-2',
      });
      expect(updated).toMatchObject({
        id: sub.id,
        destinationUrl: 'https://s.example.com:443/in',
        destinationOrigin: 'https://s.example.com:443',
        eventNames: ['entry.created', 'entry.updated'],
        previousSecretSealed: 'sealed',
        previousSecretUntil: until,
        secretSealed: 'sealed-2',
        enabled: true,
        createdAt: sub.createdAt,
      });
      expect(updated.updatedAt.getTime()).toBeGreaterThan(Date.now() - MIN / 2);
      expect(await w.stores.subscriptions.find(ORG, sub.id)).toEqual(updated);
    },

    async 'deletes softly: disabled, gone from finds and lists, still walked by allIds'(w) {
      const sub = await addSubscription(w);
      const kept = await addSubscription(w);
      await w.stores.subscriptions.softDelete(sub.id);
      expect(await w.stores.subscriptions.find(ORG, sub.id)).toBeUndefined();
      expect((await w.stores.subscriptions.list(ORG, {}, { page: 1, pageSize: 10 })).data.map((r) => r.id)).toEqual([kept.id]);
      expect((await w.stores.subscriptions.allIds()).sort()).toEqual([sub.id, kept.id].sort());
      expect(await w.stores.subscriptions.disableFor(sub.id, 'gone')).toBeUndefined();
    },

    async 'matches the enabled, live subscriptions of the organizations that list any of the events'(w) {
      const a = await addSubscription(w, { eventNames: ['entry.created', 'entry.updated'] });
      const b = await addSubscription(w, { organizationId: OTHER_ORG, eventNames: ['entry.updated'] });
      await addSubscription(w, { eventNames: ['project.created'] });
      await addSubscription(w, { enabled: false });
      const gone = await addSubscription(w);
      await w.stores.subscriptions.softDelete(gone.id);
      await addSubscription(w, { organizationId: randomUUID() });
      const more = [];
      for (let i = 0; i < 4; i++) more.push(await addSubscription(w, { eventNames: ['entry.updated'] }));
      const found = await w.stores.subscriptions.matching([ORG, OTHER_ORG], ['entry.updated', 'entry.created']);
      // In id order (the fan-out inserts in that order, so two fan-outs of an event never deadlock).
      expect(found.map((s) => s.id)).toEqual([a, b, ...more].map((s) => s.id).sort());
      expect(found.find((s) => s.id === a.id)).toEqual({
        id: a.id,
        organizationId: ORG,
        eventNames: ['entry.created', 'entry.updated'],
        createdAt: a.createdAt,
        destinationUrl: a.destinationUrl,
        destinationOrigin: a.destinationOrigin,
        secretSealed: 'sealed',
        previousSecretSealed: null,
        previousSecretUntil: null,
        receiverSealed: null,
        ordering: 'none',
        temporary: false,
        rateLimit: null,
        maxInFlight: null,
        pausedUntil: null,
        filter: null,
      });
      expect(await w.stores.subscriptions.matching([ORG], ['entry.deleted'])).toEqual([]);
      expect(await w.stores.subscriptions.matching([], ['entry.created'])).toEqual([]);
    },

    async 'keeps a filter as given, answers it to the fan-out, and clears it with null'(w) {
      const filter = { payload: { status: { $in: ['done', 'closed'] }, 'a/b': [1, 2.5, null, true] }, $not: { x: {} } };
      const sub = await addSubscription(w, { filter });
      const plain = await addSubscription(w);
      expect(sub.filter).toEqual(filter);
      expect(plain.filter).toBeNull();
      const found = await w.stores.subscriptions.matching([ORG], ['entry.created']);
      expect(found.find((s) => s.id === sub.id)?.filter).toEqual(filter);
      expect(found.find((s) => s.id === plain.id)?.filter).toBeNull();
      expect((await w.stores.subscriptions.update(sub.id, { filter: null })).filter).toBeNull();
    },

    async 'adds filtered counts by the hour, sums them from the hour holding since, and prunes old hours'(w) {
      const a = randomUUID();
      const b = randomUUID();
      const hour = (h: number) => new Date(Date.UTC(2026, 10, 28, h, 0, 0));
      await w.stores.subscriptions.addFiltered(
        new Map([
          [a, 2],
          [b, 1],
        ]),
        new Date(hour(9).getTime() + 10 * MIN),
      );
      await w.stores.subscriptions.addFiltered(
        new Map([
          [a, 3],
          [b, 0],
        ]),
        new Date(hour(9).getTime() + 50 * MIN),
      );
      await w.stores.subscriptions.addFiltered(new Map([[a, 4]]), new Date(hour(11).getTime() + MIN));
      await w.stores.subscriptions.addFiltered(new Map(), hour(12));
      expect(await w.stores.subscriptions.filteredSince(a, hour(8))).toBe(9);
      // The window's first hour counts whole.
      expect(await w.stores.subscriptions.filteredSince(a, new Date(hour(9).getTime() + 59 * MIN))).toBe(9);
      expect(await w.stores.subscriptions.filteredSince(a, hour(10))).toBe(4);
      expect(await w.stores.subscriptions.filteredSince(b, hour(9))).toBe(1);
      expect(await w.stores.subscriptions.filteredSince(randomUUID(), hour(0))).toBe(0);
      expect(await w.stores.subscriptions.pruneFiltered(hour(10))).toBe(2);
      expect(await w.stores.subscriptions.filteredSince(a, hour(0))).toBe(4);
      expect(await w.stores.subscriptions.filteredSince(b, hour(0))).toBe(0);
    },

    async 'walks the secrets not sealed with a prefix in id order, after a cursor, deleted ones too'(w) {
      const subs: SubscriptionRow[] = [];
      for (const sealed of ['v1:a', 'v2:b', 'v1:c', 'v1:d']) subs.push(await addSubscription(w, { secretSealed: sealed }));
      await w.stores.subscriptions.softDelete(subs[3].id);
      const old = subs.filter((s) => s.secretSealed.startsWith('v1:')).sort((x, y) => (x.id < y.id ? -1 : 1));
      const walked = (rows: typeof subs) =>
        rows.map(({ id, secretSealed }) => ({ id, secretSealed, previousSecretSealed: null, receiverSealed: null }));
      const first = await w.stores.subscriptions.sealedOtherwise('v2:', null, 2);
      expect(first).toEqual(walked(old.slice(0, 2)));
      const rest = await w.stores.subscriptions.sealedOtherwise('v2:', first[1].id, 2);
      expect(rest).toEqual(walked(old.slice(2)));
    },

    async 'walks a previous secret not sealed with a prefix while its grace period runs, and replaces it'(w) {
      const hour = 3_600_000;
      const withPrevious = async (secretSealed: string, previousSecretSealed: string, untilMs: number) => {
        const sub = await addSubscription(w, { secretSealed });
        return w.stores.subscriptions.update(sub.id, {
          previousSecretSealed,
          previousSecretUntil: new Date(Date.now() + untilMs),
        });
      };
      const inGrace = await withPrevious('v2:new', 'v1:old', hour);
      await withPrevious('v2:b', 'v1:gone', -hour);
      await withPrevious('v2:c', 'v2:c0', hour);
      expect(await w.stores.subscriptions.sealedOtherwise('v2:', null, 10)).toEqual([
        { id: inGrace.id, secretSealed: 'v2:new', previousSecretSealed: 'v1:old', receiverSealed: null },
      ]);
      expect(await w.stores.subscriptions.replaceSealed(inGrace.id, 'v1:other', 'v2:x', 'previousSecretSealed')).toBe(false);
      expect(await w.stores.subscriptions.replaceSealed(inGrace.id, 'v1:old', 'v2:old', 'previousSecretSealed')).toBe(true);
      const row = await w.stores.subscriptions.find(ORG, inGrace.id);
      expect(row).toMatchObject({ secretSealed: 'v2:new', previousSecretSealed: 'v2:old' });
      expect(await w.stores.subscriptions.sealedOtherwise('v2:', null, 10)).toEqual([]);
    },

    async 'replaces a sealed secret only while it is still the one it was read as'(w) {
      const sub = await addSubscription(w, { secretSealed: 'v1:a' });
      expect(await w.stores.subscriptions.replaceSealed(sub.id, 'v1:other', 'v2:x')).toBe(false);
      expect((await w.stores.subscriptions.find(ORG, sub.id))?.secretSealed).toBe('v1:a');
      expect(await w.stores.subscriptions.replaceSealed(sub.id, 'v1:a', 'v2:a')).toBe(true);
      expect((await w.stores.subscriptions.find(ORG, sub.id))?.secretSealed).toBe('v2:a');
    },

    async 'disables an enabled subscription for a reason, once'(w) {
      const sub = await addSubscription(w);
      const off = await addSubscription(w, { enabled: false });
      const disabled = await w.stores.subscriptions.disableFor(sub.id, 'gone');
      expect(disabled).toMatchObject({ id: sub.id, enabled: false, disabledReason: 'gone' });
      expect(disabled?.disabledAt?.getTime()).toBeGreaterThan(Date.now() - MIN / 2);
      expect(await w.stores.subscriptions.disableFor(sub.id, 'failing')).toBeUndefined();
      expect((await w.stores.subscriptions.find(ORG, sub.id))?.disabledReason).toBe('gone');
      expect(await w.stores.subscriptions.disableFor(off.id, 'gone')).toBeUndefined();
    },

    async 'claims each failing notice once, for enabled live runs of failures at the threshold'(w) {
      const since = fromNow(-10 * MIN);
      const failing = { consecutiveFailures: 5, failingSince: since };
      const [due, short, told, off, gone, healthy] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => addSubscription(w)));
      await w.patchSubscription(due.id, failing);
      await w.patchSubscription(short.id, { ...failing, consecutiveFailures: 4 });
      await w.patchSubscription(told.id, { ...failing, failingNotifiedAt: fromNow(-MIN) });
      await w.patchSubscription(off.id, { ...failing, enabled: false });
      await w.patchSubscription(gone.id, { ...failing, deletedAt: new Date() });
      await w.patchSubscription(healthy.id, { consecutiveFailures: 9 });
      const claimed = await w.stores.subscriptions.claimFailingNotices(5);
      expect(sortedIds(claimed)).toEqual([due.id]);
      expect(claimed[0]).toMatchObject({ consecutiveFailures: 5, failingSince: since });
      expect(claimed[0].failingNotifiedAt?.getTime()).toBeGreaterThan(Date.now() - MIN / 2);
      expect(await w.stores.subscriptions.claimFailingNotices(5)).toEqual([]);
      expect(sortedIds(await w.stores.subscriptions.claimFailingNotices(4))).toEqual([short.id]);
    },

    async 'names the enabled live subscriptions failing since before a cutoff'(w) {
      const [old, recent, off, gone] = await Promise.all([1, 2, 3, 4, 5].map(() => addSubscription(w)));
      await w.patchSubscription(old.id, { consecutiveFailures: 3, failingSince: fromNow(-60 * MIN) });
      await w.patchSubscription(recent.id, { consecutiveFailures: 3, failingSince: fromNow(-MIN) });
      await w.patchSubscription(off.id, { failingSince: fromNow(-60 * MIN), enabled: false });
      await w.patchSubscription(gone.id, { failingSince: fromNow(-60 * MIN), deletedAt: new Date() });
      expect(await w.stores.subscriptions.failingSinceBefore(fromNow(-30 * MIN))).toEqual([old.id]);
      expect((await w.stores.subscriptions.failingSinceBefore(new Date())).sort()).toEqual([old.id, recent.id].sort());
    },

    async "a locked find does not hold another subscription's row"(w) {
      const [a, b] = [await addSubscription(w), await addSubscription(w)];
      const turns = await lockTurns(
        w,
        (tx) => tx.subscriptions.find(ORG, a.id, { lock: true }),
        (tx) => tx.subscriptions.find(ORG, b.id, { lock: true }),
      );
      expect(turns).toEqual(['second took', 'first ended']);
    },
  },
  postgresOnly: {
    'a locked find holds the row until its transaction ends': {
      reason: 'the fake has no concurrent transactions: its transaction neither isolates nor locks',
      async test(w) {
        const sub = await addSubscription(w);
        const turns = await lockTurns(w, (tx) => tx.subscriptions.find(ORG, sub.id, { lock: true }));
        expect(turns).toEqual(['first ended', 'second took']);
      },
    },
  },
});
