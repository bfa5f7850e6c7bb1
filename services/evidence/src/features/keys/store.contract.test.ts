import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { createFakeEvidenceKeyStore } from './fake-store.ts';
import { createEvidenceKeyStore, type EvidenceKeyStore } from './store.ts';

// EvidenceKeyStore, against its fake (the keys' unit tests use it) and Postgres.
describeStoreContract<EvidenceKeyStore>('EvidenceKeyStore', {
  database: useContractDatabase('evidence', migrations),
  fake: () => createFakeEvidenceKeyStore(),
  postgres: (db) => createEvidenceKeyStore(db),
  cases: {
    async 'has no key for an organization that never made one'(store) {
      expect(await store.current(randomUUID())).toBeUndefined();
    },

    async 'replaces the current key, answering the one it revoked, per organization'(store) {
      const org = randomUUID();
      const other = randomUUID();
      expect(await store.replace(org, 'sealed-1')).toBeUndefined();
      expect(await store.current(org)).toBe('sealed-1');
      expect(await store.replace(org, 'sealed-2')).toBe('sealed-1');
      expect(await store.current(org)).toBe('sealed-2');
      expect(await store.replace(other, 'sealed-3')).toBeUndefined();
      expect(await store.current(org)).toBe('sealed-2');
      expect(await store.current(other)).toBe('sealed-3');
    },

    async "takes one organization's rotations in turns: one current key, each old key revoked once"(store) {
      const org = randomUUID();
      await store.replace(org, 'sealed-0');
      const revoked = await Promise.all(['a', 'b', 'c'].map((k) => store.replace(org, `sealed-${k}`)));
      const current = await store.current(org);
      // Each rotation revoked the key before it: together they revoked every key but the current one, once.
      expect([...revoked, current].sort()).toEqual(['sealed-0', 'sealed-a', 'sealed-b', 'sealed-c']);
    },
  },
});
