import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld } from '../../shared/contract-world.ts';

const later = () => new Date(Date.now() + 3_600_000);
const earlier = () => new Date(Date.now() - 3_600_000);

// IdempotencyStore held to Postgres.
describeStoreContract('IdempotencyStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'insertIfAbsent takes a key once per API key; findLocked reads the in-progress record': async (w) => {
      const store = w.stores.idempotency;
      const apiKey = randomUUID();
      const expiresAt = later();
      expect(await store.insertIfAbsent(apiKey, 'k', 'fp1', expiresAt)).toBe(true);
      expect(await store.insertIfAbsent(apiKey, 'k', 'fp2', later())).toBe(false);
      expect(await store.insertIfAbsent(randomUUID(), 'k', 'fp2', later())).toBe(true);
      const row = await store.findLocked(apiKey, 'k');
      expect(row?.lockedAt).toBeInstanceOf(Date);
      expect({ ...row, lockedAt: undefined }).toEqual({
        apiKeyId: apiKey,
        key: 'k',
        fingerprint: 'fp1',
        state: 'in_progress',
        status: null,
        body: null,
        headers: null,
        lockedAt: undefined,
        expiresAt,
      });
      expect(await store.findLocked(apiKey, 'other')).toBeUndefined();
    },
    'complete stores the answer; restart makes it a new in-progress record': async (w) => {
      const store = w.stores.idempotency;
      const apiKey = randomUUID();
      await store.insertIfAbsent(apiKey, 'k', 'fp1', later());
      await store.complete(apiKey, 'k', 201, { id: 'x', list: [1] }, { location: '/x' });
      expect(await store.findLocked(apiKey, 'k')).toMatchObject({
        state: 'done',
        status: 201,
        body: { id: 'x', list: [1] },
        headers: { location: '/x' },
      });
      await store.insertIfAbsent(randomUUID(), 'k', 'fp', later());
      await store.complete(apiKey, 'k', 204, undefined, undefined);
      expect(await store.findLocked(apiKey, 'k')).toMatchObject({ status: 204, body: null, headers: null });
      const expiresAt = later();
      await store.restart(apiKey, 'k', 'fp2', expiresAt);
      expect(await store.findLocked(apiKey, 'k')).toMatchObject({
        fingerprint: 'fp2',
        state: 'in_progress',
        status: null,
        body: null,
        headers: null,
        expiresAt,
      });
    },
    'release drops an in-progress record only; sweep drops the expired ones only': async (w) => {
      const store = w.stores.idempotency;
      const apiKey = randomUUID();
      await store.insertIfAbsent(apiKey, 'running', 'fp', later());
      await store.insertIfAbsent(apiKey, 'done', 'fp', later());
      await store.complete(apiKey, 'done', 200, {}, {});
      await store.release(apiKey, 'running');
      await store.release(apiKey, 'done');
      expect(await store.findLocked(apiKey, 'running')).toBeUndefined();
      expect(await store.findLocked(apiKey, 'done')).toBeDefined();
      await store.insertIfAbsent(apiKey, 'expired', 'fp', earlier());
      await store.sweep();
      expect(await store.findLocked(apiKey, 'expired')).toBeUndefined();
      expect(await store.findLocked(apiKey, 'done')).toBeDefined();
    },
  },
});
