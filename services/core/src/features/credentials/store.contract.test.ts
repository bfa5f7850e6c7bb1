import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Knex } from '@cluster/db';
import { createFakeStores } from '../../fake-stores.ts';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { createStores, type Stores } from '../../stores.ts';
import { generateApiKey } from './key-secret.ts';
import { hashSessionToken } from './sessions.ts';
import type { NewApiKey } from './store.ts';

/**
 * The credential stores (ApiKeyStore, SessionStore) held to one contract: the same cases
 * against the fakes (fake-store.ts) and against Postgres (store.ts), in a database of this file.
 */

/** The stores under test with what they read: an organization, its admin and a project, made through the stores. */
interface World {
  stores: Stores;
  /** The pool, on Postgres only (for the cases about transactions). */
  db?: Knex;
  seed(): Promise<{ organizationId: string; userId: string; projectId: string }>;
}

function worldOf(stores: Stores, db?: Knex): World {
  return {
    stores,
    db,
    async seed() {
      const org = await stores.organizations.insert(`Org ${randomUUID()}`);
      const user = await stores.users.insert({
        organizationId: org.id,
        email: `${randomUUID()}@acme.test`,
        name: 'Admin',
        role: 'admin',
      });
      const project = await stores.projects.insert({
        organizationId: org.id,
        clientId: org.id,
        name: 'Site',
        description: '',
      });
      return { organizationId: org.id, userId: user.id, projectId: project.id };
    },
  };
}

/** A new key of the seeded admin; `over` applied. */
function newKey(seeded: { organizationId: string; userId: string }, over: Partial<NewApiKey> = {}) {
  const { key, prefix, hash } = generateApiKey();
  const values: NewApiKey = {
    organizationId: seeded.organizationId,
    createdByUserId: seeded.userId,
    name: 'ci',
    prefix,
    keyHash: hash,
    scope: 'organization',
    scopedProjectId: null,
    permissions: null,
    ...over,
  };
  return { key, values };
}

/** A seeded organization and admin with one stored key of theirs (its values, `over` applied). */
async function withKey({ stores, seed }: World, over: Partial<NewApiKey> = {}) {
  const seeded = await seed();
  const { values } = newKey(seeded, over);
  return { seeded, values, row: await stores.apiKeys.insert(values) };
}

const NO_SUCH_ID = '00000000-0000-4000-8000-00000000dead';
const ME_FIELDS = [
  'createdByUserId',
  'id',
  'lastUsedAt',
  'name',
  'organizationId',
  'permissions',
  'prefix',
  'scope',
  'scopedProjectId',
];

const database = useContractDatabase('core', migrations);

describeStoreContract<World>('credential stores', {
  database,
  fake: () => worldOf(createFakeStores()),
  postgres: (db) => worldOf(createStores(db), db),
  cases: {
    'insert answers the stored row without its hash; find answers the same, and nothing for unknown or non-UUID ids': async ({
      stores,
      seed,
    }) => {
      const seeded = await seed();
      const { values } = newKey(seeded, { permissions: ['read:project', 'read:entry'] });
      const row = await stores.apiKeys.insert(values);
      expect(row).toMatchObject({
        organizationId: seeded.organizationId,
        createdByUserId: seeded.userId,
        name: 'ci',
        prefix: values.prefix,
        scope: 'organization',
        scopedProjectId: null,
        permissions: ['read:project', 'read:entry'],
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(row.createdAt).toBeInstanceOf(Date);
      expect(Object.keys(row)).not.toContain('keyHash');
      expect(await stores.apiKeys.find(row.id)).toEqual(row);
      expect(await stores.apiKeys.find(NO_SUCH_ID)).toBeUndefined();
      expect(await stores.apiKeys.find('not-a-uuid')).toBeUndefined();
      const scoped = await stores.apiKeys.insert(
        newKey(seeded, { scope: 'project', scopedProjectId: seeded.projectId, name: null }).values,
      );
      expect(scoped).toMatchObject({ scope: 'project', scopedProjectId: seeded.projectId, name: null, permissions: null });
    },

    "findForAuth answers the key with its hash, its creator's current role and its organization's API switch": async (world) => {
      const { stores } = world;
      const { seeded, values, row } = await withKey(world);
      const found = await stores.apiKeys.findForAuth(values.prefix);
      expect(found).toEqual({
        id: row.id,
        organizationId: seeded.organizationId,
        createdByUserId: seeded.userId,
        scope: 'organization',
        scopedProjectId: null,
        permissions: null,
        revokedAt: null,
        keyHash: values.keyHash,
        role: 'admin',
        apiEnabled: true,
      });
      await stores.users.update(seeded.userId, { role: 'viewer' });
      await stores.organizations.setApiEnabled(seeded.organizationId, false);
      expect(await stores.apiKeys.findForAuth(values.prefix)).toMatchObject({ role: 'viewer', apiEnabled: false });
      expect(await stores.apiKeys.findForAuth(generateApiKey().prefix)).toBeUndefined();
    },

    'findCurrent answers the keys of the ids that exist, skipping unknown and non-UUID ones': async ({ stores, seed }) => {
      const seeded = await seed();
      const a = await stores.apiKeys.insert(newKey(seeded).values);
      const b = await stores.apiKeys.insert(newKey(seeded).values);
      const found = await stores.apiKeys.findCurrent([b.id, NO_SUCH_ID, 'nope', a.id]);
      expect(found.map((k) => k.id).sort()).toEqual([a.id, b.id].sort());
      expect(found.every((k) => k.role === 'admin' && k.apiEnabled && Buffer.isBuffer(k.keyHash))).toBe(true);
      expect(await stores.apiKeys.findCurrent([])).toEqual([]);
      expect(await stores.apiKeys.findCurrent(['nope'])).toEqual([]);
    },

    'revoke marks the key revoked now, seen by find and by authentication; an unknown key revokes nothing': async (world) => {
      const { stores } = world;
      const { values, row } = await withKey(world);
      const before = Date.now();
      const revoked = await stores.apiKeys.revoke(row.id);
      expect(revoked?.revokedAt).toBeInstanceOf(Date);
      expect(Math.abs((revoked?.revokedAt?.getTime() ?? 0) - before)).toBeLessThan(5_000);
      expect(await stores.apiKeys.find(row.id)).toEqual(revoked);
      expect((await stores.apiKeys.findForAuth(values.prefix))?.revokedAt).toEqual(revoked?.revokedAt);
      expect(await stores.apiKeys.revoke(NO_SUCH_ID)).toBeUndefined();
      expect(await stores.apiKeys.revoke('nope')).toBeUndefined();
    },

    'findForMe answers exactly the columns GET /me shows': async ({ stores, seed }) => {
      const seeded = await seed();
      const row = await stores.apiKeys.insert(newKey(seeded, { permissions: ['read:project'] }).values);
      const me = await stores.apiKeys.findForMe(row.id);
      expect(Object.keys(me ?? {}).sort()).toEqual(ME_FIELDS);
      expect(me).toMatchObject({ id: row.id, prefix: row.prefix, permissions: ['read:project'], lastUsedAt: null });
      expect(await stores.apiKeys.findForMe(NO_SUCH_ID)).toBeUndefined();
      expect(await stores.apiKeys.findForMe('nope')).toBeUndefined();
    },

    'touchLastUsed sets lastUsedAt once per 30 seconds: a second touch at once keeps the first time': async ({
      stores,
      seed,
    }) => {
      const seeded = await seed();
      const row = await stores.apiKeys.insert(newKey(seeded).values);
      await stores.apiKeys.touchLastUsed(row.id);
      const first = (await stores.apiKeys.find(row.id))?.lastUsedAt;
      expect(first).toBeInstanceOf(Date);
      await stores.apiKeys.touchLastUsed(row.id);
      expect((await stores.apiKeys.find(row.id))?.lastUsedAt).toEqual(first);
      expect((await stores.apiKeys.findForMe(row.id))?.lastUsedAt).toEqual(first);
      await stores.apiKeys.touchLastUsed(NO_SUCH_ID);
    },

    'a session answers its user while live, and nothing once expired or for another token': async ({ stores, seed }) => {
      const seeded = await seed();
      const tokenHash = hashSessionToken(randomUUID());
      const expiresAt = new Date(Date.now() + 60_000);
      await stores.sessions.insert({ tokenHash, userId: seeded.userId, expiresAt });
      const user = { userId: seeded.userId, organizationId: seeded.organizationId, role: 'admin' };
      expect(await stores.sessions.findLive(tokenHash, new Date())).toEqual(user);
      expect(await stores.sessions.findLive(tokenHash, expiresAt)).toBeUndefined();
      expect(await stores.sessions.findLive(hashSessionToken('other'), new Date())).toBeUndefined();
      await stores.users.update(seeded.userId, { role: 'manager' });
      expect(await stores.sessions.findLive(tokenHash, new Date())).toEqual({ ...user, role: 'manager' });
    },
  },
  postgresOnly: {
    'a key locked by find({ lock }) is revoked by another transaction only after it ends': {
      reason: 'the fake has no transactions and no row locks',
      async test({ db, seed }) {
        if (!db) throw new Error('a postgres world has its pool');
        const seeded = await seed();
        const row = await createStores(db).apiKeys.insert(newKey(seeded).values);
        let revokedAt: Date | null | undefined;
        let revoke: Promise<unknown> = Promise.resolve();
        await db.transaction(async (trx) => {
          expect((await createStores(trx).apiKeys.find(row.id, { lock: true }))?.id).toBe(row.id);
          revoke = createStores(db)
            .apiKeys.revoke(row.id)
            .then((r) => (revokedAt = r?.revokedAt));
          await new Promise((r) => setTimeout(r, 200));
          expect(revokedAt).toBeUndefined();
        });
        await revoke;
        expect(revokedAt).toBeInstanceOf(Date);
      },
    },
    'a prefix is stored once': {
      reason: "the unique index on api_keys.prefix: the fake does not check it (generated prefixes don't repeat)",
      async test({ stores, seed }) {
        const seeded = await seed();
        const { values } = newKey(seeded);
        await stores.apiKeys.insert(values);
        await expect(stores.apiKeys.insert({ ...values, keyHash: generateApiKey().hash })).rejects.toThrow(/unique/);
      },
    },
    'a key or a session needs an existing user (and a key its organization)': {
      reason: 'foreign keys: the fake stores what it is given',
      async test({ stores, seed }) {
        const seeded = await seed();
        await expect(stores.apiKeys.insert(newKey({ ...seeded, userId: NO_SUCH_ID }).values)).rejects.toThrow(/foreign key/);
        await expect(stores.apiKeys.insert(newKey({ ...seeded, organizationId: NO_SUCH_ID }).values)).rejects.toThrow(
          /foreign key/,
        );
        const session = { tokenHash: hashSessionToken(randomUUID()), userId: NO_SUCH_ID, expiresAt: new Date() };
        await expect(stores.sessions.insert(session)).rejects.toThrow(/foreign key/);
      },
    },
  },
});
