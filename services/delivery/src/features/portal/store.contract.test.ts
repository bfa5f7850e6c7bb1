import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeDeliveryWorld, fromNow, MIN, postgresDeliveryWorld, type DeliveryWorld } from '../../shared/contract-world.ts';
import { ORG, OTHER_ORG } from '../../shared/test-fixtures.ts';

// PortalStore (the integrator portal's one-time links, sessions and frame-ancestors settings), against
// its fake (fake-store.ts) and Postgres.

/** A minted, unopened link of ORG, living `lifetimeSeconds` once opened. */
async function mint(w: DeliveryWorld, linkExpiresAt = fromNow(10 * MIN), lifetimeSeconds = 3600) {
  const linkHash = randomUUID();
  const row = await w.stores.portal.insert({
    id: randomUUID(),
    organizationId: ORG,
    apiKeyId: randomUUID(),
    actor: { apiKeyId: 'k', permissions: ['read:webhook'] },
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
