import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeDeliveryWorld, fromNow, MIN, postgresDeliveryWorld, type DeliveryWorld } from '../../shared/contract-world.ts';
import { ORG, OTHER_ORG } from '../../shared/test-fixtures.ts';

// PortalStore (the integrator portal's one-time links, sessions and frame-ancestors settings), against
// its fake (fake-store.ts) and Postgres.

/** A minted, unopened link of ORG (or `organizationId`), living `lifetimeSeconds` once opened. */
async function mint(w: DeliveryWorld, linkExpiresAt = fromNow(10 * MIN), lifetimeSeconds = 3600, organizationId = ORG) {
  const linkHash = randomUUID();
  const row = await w.stores.portal.insert({
    id: randomUUID(),
    organizationId,
    apiKeyId: randomUUID(),
    actor: { apiKeyId: 'k', scope: 'organization', permissions: ['read:webhook'] },
    access: 'read-only',
    projectId: null,
    lifetimeSeconds,
    linkHash,
    linkExpiresAt,
  });
  return { row, linkHash };
}

describeStoreContract<DeliveryWorld>('PortalStore', {
  database: useContractDatabase('delivery', migrations),
  fake: fakeDeliveryWorld,
  postgres: postgresDeliveryWorld,
  cases: {
    async 'opens a link once, before it expires, into a session of its lifetime'(w) {
      const { row, linkHash } = await mint(w);
      expect(row).toMatchObject({ openedAt: null, sessionHash: null, expiresAt: null, access: 'read-only' });
      const now = new Date();
      const opened = await w.stores.portal.open(linkHash, 'session-a', 'csrf-a', now);
      expect(opened).toMatchObject({ id: row.id, sessionHash: 'session-a', csrfHash: 'csrf-a' });
      expect(opened?.expiresAt?.getTime()).toBe(now.getTime() + 3600 * 1000);
      expect(await w.stores.portal.open(linkHash, 'session-b', 'csrf-b', new Date())).toBeUndefined();
      expect((await w.stores.portal.findLive('session-a', new Date()))?.id).toBe(row.id);
      expect(await w.stores.portal.findLive('session-a', fromNow(2 * 3600 * 1000))).toBeUndefined();
      expect(await w.stores.portal.findLive('session-b', new Date())).toBeUndefined();
      // By id too (the delivery service's check of an actor's portalSessionId): opened and unexpired only.
      expect((await w.stores.portal.findLiveById(row.id, new Date()))?.organizationId).toBe(ORG);
      expect(await w.stores.portal.findLiveById(row.id, fromNow(2 * 3600 * 1000))).toBeUndefined();
      expect(await w.stores.portal.findLiveById(randomUUID(), new Date())).toBeUndefined();
      expect(await w.stores.portal.findLiveById('not-a-uuid', new Date())).toBeUndefined();
      const unopened = await mint(w);
      expect(await w.stores.portal.findLiveById(unopened.row.id, new Date())).toBeUndefined();

      const late = await mint(w, fromNow(-MIN));
      expect(await w.stores.portal.open(late.linkHash, 'session-c', 'csrf-c', new Date())).toBeUndefined();
    },

    async 'ends a live session once, opened or not: then it is not found, listed, opened or ended again'(w) {
      const now = new Date();
      const opened = await mint(w);
      await w.stores.portal.open(opened.linkHash, 'session-o', 'csrf-o', now);
      const unopened = await mint(w);
      const ended = await w.stores.portal.end(ORG, opened.row.id, now);
      expect(ended).toMatchObject({ id: opened.row.id, organizationId: ORG, apiKeyId: opened.row.apiKeyId, access: 'read-only' });
      expect(ended?.endedAt?.getTime()).toBe(now.getTime());
      // Its expiry is brought forward to the end: the sweep forgets it a day later, as an expired one.
      expect(ended?.expiresAt?.getTime()).toBe(now.getTime());
      expect(await w.stores.portal.findLive('session-o', fromNow(-MIN))).toBeUndefined();
      expect(await w.stores.portal.findLiveById(opened.row.id, fromNow(-MIN))).toBeUndefined();
      expect(await w.stores.portal.end(ORG, opened.row.id, new Date())).toBeUndefined();

      // An unopened link ended can no longer be opened, even at a time its link was valid.
      const endedLink = await w.stores.portal.end(ORG, unopened.row.id, now);
      expect(endedLink).toMatchObject({ id: unopened.row.id, openedAt: null, expiresAt: null });
      expect(endedLink?.linkExpiresAt.getTime()).toBe(now.getTime());
      expect(await w.stores.portal.open(unopened.linkHash, 'session-u', 'csrf-u', fromNow(-MIN))).toBeUndefined();
      expect((await w.stores.portal.listLive(ORG, fromNow(-MIN), { page: 1, pageSize: 25 })).total).toBe(0);
      expect(await w.stores.portal.deleteExpired(fromNow(2 * MIN))).toBe(2);
    },

    async 'ends only a live session of its own organization'(w) {
      const now = new Date();
      const theirs = await mint(w, fromNow(10 * MIN), 3600, OTHER_ORG);
      await w.stores.portal.open(theirs.linkHash, 'session-t', 'csrf-t', now);
      expect(await w.stores.portal.end(ORG, theirs.row.id, now)).toBeUndefined();
      expect((await w.stores.portal.findLive('session-t', now))?.id).toBe(theirs.row.id);
      expect(await w.stores.portal.end(ORG, randomUUID(), now)).toBeUndefined();
      expect(await w.stores.portal.end(ORG, 'not-a-uuid', now)).toBeUndefined();
      // Expired: the session, and a link never opened.
      const short = await mint(w, fromNow(10 * MIN), 60);
      await w.stores.portal.open(short.linkHash, 'session-s', 'csrf-s', now);
      expect(await w.stores.portal.end(ORG, short.row.id, fromNow(2 * MIN))).toBeUndefined();
      const stale = await mint(w, fromNow(-MIN));
      expect(await w.stores.portal.end(ORG, stale.row.id, now)).toBeUndefined();
    },

    async "lists the organization's live sessions, newest first, a page at a time, without token hashes"(w) {
      const now = new Date();
      const unopened = await mint(w);
      const opened = await mint(w);
      await w.stores.portal.open(opened.linkHash, 'session-l', 'csrf-l', now);
      const ended = await mint(w);
      await w.stores.portal.end(ORG, ended.row.id, now);
      const short = await mint(w, fromNow(10 * MIN), 60);
      await w.stores.portal.open(short.linkHash, 'session-x', 'csrf-x', now);
      await mint(w, fromNow(-MIN)); // a link that can no longer be opened
      await mint(w, fromNow(10 * MIN), 3600, OTHER_ORG);

      const all = await w.stores.portal.listLive(ORG, new Date(), { page: 1, pageSize: 25 });
      expect(all.total).toBe(3);
      expect(all.data.map((r) => r.id).sort()).toEqual([unopened.row.id, opened.row.id, short.row.id].sort());
      const times = all.data.map((r) => r.createdAt.getTime());
      expect(times).toEqual([...times].sort((a, b) => b - a));
      const row = all.data.find((r) => r.id === opened.row.id);
      expect(row).toMatchObject({ organizationId: ORG, apiKeyId: opened.row.apiKeyId, access: 'read-only', projectId: null });
      expect(row?.openedAt?.getTime()).toBe(now.getTime());
      expect(row?.expiresAt?.getTime()).toBe(now.getTime() + 3600 * 1000);
      expect(row?.actor).toMatchObject({ scope: 'organization' });
      expect(Object.keys(row ?? {}).sort()).toEqual([
        'access',
        'actor',
        'apiKeyId',
        'createdAt',
        'expiresAt',
        'id',
        'linkExpiresAt',
        'openedAt',
        'organizationId',
        'projectId',
      ]);
      // The sessions whose time has passed are gone from the list; the open link's and the long one stay.
      const later = await w.stores.portal.listLive(ORG, fromNow(2 * MIN), { page: 1, pageSize: 25 });
      expect(later.data.map((r) => r.id).sort()).toEqual([unopened.row.id, opened.row.id].sort());

      const first = await w.stores.portal.listLive(ORG, new Date(), { page: 1, pageSize: 2 });
      const second = await w.stores.portal.listLive(ORG, new Date(), { page: 2, pageSize: 2 });
      expect([first.total, first.data.length, second.total, second.data.length]).toEqual([3, 2, 3, 1]);
      expect([...first.data, ...second.data].map((r) => r.id)).toEqual(all.data.map((r) => r.id));
    },

    async 'keeps the frame-ancestors list per organization, the last one saved'(w) {
      expect(await w.stores.portal.settings(ORG)).toBeUndefined();
      await w.stores.portal.saveSettings(ORG, ['https://a.example']);
      await w.stores.portal.saveSettings(ORG, ['https://b.example', 'https://c.example']);
      await w.stores.portal.saveSettings(OTHER_ORG, []);
      expect((await w.stores.portal.settings(ORG))?.frameAncestors).toEqual(['https://b.example', 'https://c.example']);
      expect((await w.stores.portal.settings(OTHER_ORG))?.frameAncestors).toEqual([]);
    },

    async 'deletes only the sessions whose link and session have both expired'(w) {
      const unopened = await mint(w, fromNow(-2 * MIN));
      const live = await mint(w, fromNow(-2 * MIN), 3600);
      await w.stores.portal.open(live.linkHash, 'live', 'csrf', fromNow(-3 * MIN)); // link was valid then
      const fresh = await mint(w);
      expect(await w.stores.portal.deleteExpired(new Date())).toBe(1);
      expect(await w.stores.portal.findLive('live', new Date())).toBeDefined();
      expect(await w.stores.portal.open(fresh.linkHash, 'f', 'c', new Date())).toBeDefined();
      expect(await w.stores.portal.open(unopened.linkHash, 'u', 'c', fromNow(-5 * MIN))).toBeUndefined();
    },
  },
});
