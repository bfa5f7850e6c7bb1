import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { createOAuthStore, type NewGrant } from './store.ts';

// OAuthStore.prune against Postgres: what the core's housekeeping deletes, and what it keeps.
const database = useContractDatabase('core', migrations);

const DAY = 24 * 3600 * 1000;
const now = new Date();
const ago = (days: number) => new Date(now.getTime() - days * DAY);

async function apiKey(): Promise<{ keyId: string; organizationId: string }> {
  const { db } = database;
  const [org] = await db('organizations')
    .insert({ name: `Prune ${randomUUID()}` })
    .returning<{ id: string }[]>('id');
  const [user] = await db('users')
    .insert({ organizationId: org.id, email: `${randomUUID()}@example.com`, name: 'P', role: 'admin' })
    .returning<{ id: string }[]>('id');
  const [key] = await db('api_keys')
    .insert({
      organizationId: org.id,
      createdByUserId: user.id,
      prefix: randomBytes(4).toString('hex'),
      keyHash: randomBytes(32),
      scope: 'organization',
    })
    .returning<{ id: string }[]>('id');
  return { keyId: key.id, organizationId: org.id };
}

describe('OAuthStore.prune', () => {
  it('deletes grants dead before the cut and clients without grants registered before it; keeps the rest', async () => {
    const store = createOAuthStore(database.db);
    const { keyId, organizationId } = await apiKey();
    const client = async (createdAt: Date) => {
      const id = randomUUID();
      await store.insertClient(id, { redirect_uris: ['http://127.0.0.1:9/cb'] });
      await database.db('oauth_clients').where({ id }).update({ createdAt });
      return id;
    };
    const grant = async (clientId: string, set: Record<string, Date | null>) => {
      const g: NewGrant = {
        clientId,
        apiKeyId: keyId,
        organizationId,
        scopes: ['read:entry'],
        redirectUri: 'http://127.0.0.1:9/cb',
        codeChallenge: 'c',
        resource: null,
        codeExpiresAt: now,
        codeHash: randomBytes(32),
      };
      const row = await store.insertGrant(g);
      await database.db('oauth_grants').where({ id: row.id }).update(set);
      return row.id;
    };
    const old = await client(ago(60));
    const live = await grant(old, { codeUsedAt: ago(40), codeExpiresAt: ago(40), refreshExpiresAt: ago(-10) });
    await grant(old, { codeUsedAt: ago(40), codeExpiresAt: ago(40), revokedAt: ago(35), refreshExpiresAt: ago(-10) });
    await grant(old, { codeExpiresAt: ago(31) });
    await grant(old, { codeUsedAt: ago(70), codeExpiresAt: ago(70), refreshExpiresAt: ago(40) });
    const recentlyRevoked = await grant(old, { codeUsedAt: ago(5), codeExpiresAt: ago(5), revokedAt: ago(2) });
    const neverSignedIn = await client(ago(45));
    const newlyRegistered = await client(ago(1));
    const deadOnly = await client(ago(50));
    await grant(deadOnly, { revokedAt: ago(40), codeExpiresAt: ago(40) });

    expect(await store.prune(ago(30))).toEqual({ grants: 4, clients: 2 });
    const grants = (await database.db('oauth_grants').where({ apiKeyId: keyId }).pluck('id')).sort();
    expect(grants).toEqual([live, recentlyRevoked].sort());
    expect(await store.findClient(old)).toBeDefined();
    expect(await store.findClient(newlyRegistered)).toBeDefined();
    expect(await store.findClient(neverSignedIn)).toBeUndefined();
    expect(await store.findClient(deadOnly)).toBeUndefined();
  });
});
