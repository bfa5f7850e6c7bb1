import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { packageDigest, type ChainLink } from './build.ts';
import { createFakePackageStore } from './fake-store.ts';
import { createPackageStore, type PackageStore } from './store.ts';

// PackageStore (each release's chain of evidence packages), against its fake and Postgres.

/** A release of a new organization, and an issue of it with these facts whose builds are counted. */
function release() {
  const r = { releaseId: randomUUID(), organizationId: randomUUID() };
  const links: ChainLink[] = [];
  const issue = (store: PackageStore, facts: string) =>
    store.issue({ ...r, factsSha256: facts }, (link) => {
      links.push(link);
      return Buffer.from(JSON.stringify({ facts, ...link }));
    });
  return { ...r, links, issue };
}

describeStoreContract<PackageStore>('PackageStore', {
  database: useContractDatabase('evidence', migrations),
  fake: () => createFakePackageStore(),
  postgres: (db) => createPackageStore(db),
  cases: {
    async 'issues the first package of a release, numbered 1 with no previous one, and finds it again'(store) {
      const r = release();
      expect(await store.find(r, 1)).toBeUndefined();
      const bytes = await r.issue(store, 'facts-1');
      expect(r.links).toEqual([{ sequence: 1, previousSha256: null }]);
      expect(await store.find(r, 1)).toEqual(bytes);
      expect(await store.find(r, 2)).toBeUndefined();
      expect(await store.find({ ...r, organizationId: randomUUID() }, 1)).toBeUndefined();
    },

    async 'answers the latest package again while the facts are the same, building nothing'(store) {
      const r = release();
      const bytes = await r.issue(store, 'facts-1');
      expect(await r.issue(store, 'facts-1')).toEqual(bytes);
      expect(r.links).toHaveLength(1);
    },

    async 'chains a new package to the previous one when the facts change, keeping every earlier one'(store) {
      const r = release();
      const first = await r.issue(store, 'facts-1');
      const second = await r.issue(store, 'facts-2');
      const third = await r.issue(store, 'facts-1');
      expect(r.links).toEqual([
        { sequence: 1, previousSha256: null },
        { sequence: 2, previousSha256: packageDigest(first) },
        { sequence: 3, previousSha256: packageDigest(second) },
      ]);
      expect([await store.find(r, 1), await store.find(r, 2), await store.find(r, 3)]).toEqual([first, second, third]);
    },

    async 'names the newest package as the head: its number and the digest of its bytes, of this organization only'(store) {
      const r = release();
      expect(await store.head(r)).toBeUndefined();
      await r.issue(store, 'facts-1');
      const second = await r.issue(store, 'facts-2');
      expect(await store.head(r)).toEqual({ sequence: 2, sha256: packageDigest(second) });
      await r.issue(store, 'facts-2');
      expect(await store.head(r)).toEqual({ sequence: 2, sha256: packageDigest(second) });
      expect(await store.head({ ...r, organizationId: randomUUID() })).toBeUndefined();
    },

    async 'numbers each release apart'(store) {
      const [a, b] = [release(), release()];
      await a.issue(store, 'facts-1');
      await a.issue(store, 'facts-2');
      await b.issue(store, 'facts-1');
      expect(b.links).toEqual([{ sequence: 1, previousSha256: null }]);
    },

    async 'issues one release at a time: concurrent issues make a chain with no fork and no gap'(store) {
      const r = release();
      const issued = await Promise.all(['a', 'b', 'c', 'a'].map((facts) => r.issue(store, `facts-${facts}`)));
      const stored: Buffer[] = [];
      for (let sequence = 1; ; sequence++) {
        const bytes = await store.find(r, sequence);
        if (!bytes) break;
        stored.push(bytes);
      }
      expect(r.links.map((l) => l.sequence)).toEqual(stored.map((_, i) => i + 1));
      expect(r.links.map((l) => l.previousSha256)).toEqual([null, ...stored.slice(0, -1).map(packageDigest)]);
      for (const bytes of issued) expect(stored).toContainEqual(bytes);
    },
  },
});
