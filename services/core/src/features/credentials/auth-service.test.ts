import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PERMISSIONS } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { reasonOf, TEST_ORG, testActor } from '../../shared/test-kit.ts';
import { createAuthService } from './auth-service.ts';
import type { FakeApiKey } from './fake-store.ts';
import { generateApiKey } from './key-secret.ts';

const KEY_ID = '50000000-0000-4000-8000-000000000001';
const USER = '10000000-0000-4000-8000-000000000001';

/** A key of USER (a developer) in TEST_ORG (API enabled), with `over` applied; the joined rows are the fakes'. */
function setup(over: Partial<FakeApiKey> = {}) {
  const stores = createFakeStores();
  let now = 1_000_000;
  const clock = { now: () => now };
  const auth = createAuthService(stores, clock);
  const { key, prefix, hash } = generateApiKey();
  const org = { id: TEST_ORG, name: 'Acme', apiEnabled: true, currency: 'USD', createdAt: new Date() };
  const user = {
    id: USER,
    organizationId: TEST_ORG,
    email: 'dev@acme.test',
    name: 'Dev',
    role: 'developer',
    metadata: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  stores.organizations.rows.push(org);
  stores.users.rows.push(user);
  stores.apiKeys.rows.push({
    id: KEY_ID,
    organizationId: TEST_ORG,
    createdByUserId: USER,
    name: 'ci',
    prefix,
    keyHash: hash,
    scope: 'organization',
    scopedProjectId: null,
    permissions: null,
    lastUsedAt: null,
    revokedAt: null,
    createdAt: new Date(),
    ...over,
  });
  return { stores, auth, key, prefix, org, user, advance: (ms: number) => (now += ms) };
}

describe('auth rules (fake stores)', () => {
  it("resolves a key to its actor with its creator's role defaults, and says whether the organization's API is on", async () => {
    const { auth, key } = setup();
    const { actor, apiEnabled } = await auth.authenticate(key, 'req-1');
    expect(apiEnabled).toBe(true);
    expect(actor).toMatchObject({
      apiKeyId: KEY_ID,
      organizationId: TEST_ORG,
      userId: USER,
      role: 'developer',
      scope: 'organization',
      requestId: 'req-1',
    });
    expect(actor.scopedProjectId).toBeUndefined();
    expect(actor.permissions).toEqual([...DEFAULT_PERMISSIONS.developer]);
  });

  it('answers apiEnabled false for an organization with the API disabled (the gateway then refuses with 403)', async () => {
    const { auth, key, org } = setup();
    org.apiEnabled = false;
    expect((await auth.authenticate(key, 'r')).apiEnabled).toBe(false);
  });

  it('narrows explicit permissions to what the creator role may grant now', async () => {
    const { auth, key } = setup({
      permissions: ['read:entry', 'delete:project_member', 'not:a-permission'],
      scope: 'project',
      scopedProjectId: 'p1',
    });
    const { actor } = await auth.authenticate(key, 'r');
    expect(actor.permissions).toEqual(['read:entry']);
    expect(actor.scopedProjectId).toBe('p1');
  });

  it('refuses with invalid_key a malformed key, an unknown prefix and a wrong secret, and with key_revoked a revoked key', async () => {
    const { auth, key, prefix, stores } = setup();
    expect(await reasonOf(auth.authenticate('nope', 'r'))).toBe('invalid_key');
    expect(await reasonOf(auth.authenticate(generateApiKey().key, 'r'))).toBe('invalid_key');
    expect(await reasonOf(auth.authenticate(`${prefix}_${'x'.repeat(40)}`, 'r'))).toBe('invalid_key');
    stores.apiKeys.rows[0].revokedAt = new Date();
    expect(await reasonOf(auth.authenticate(key, 'r'))).toBe('key_revoked');
    expect(stores.apiKeys.touched).toEqual([]);
  });

  it('writes lastUsedAt at most once per 30 seconds per key', async () => {
    const { auth, key, stores, advance } = setup();
    await auth.authenticate(key, 'r');
    advance(29_000);
    await auth.authenticate(key, 'r');
    expect(stores.apiKeys.touched).toEqual([KEY_ID]);
    advance(2_000);
    await auth.authenticate(key, 'r');
    expect(stores.apiKeys.touched).toEqual([KEY_ID, KEY_ID]);
  });

  it('answers GET /me without the hash, and 401 when the key is gone', async () => {
    const { auth, stores, prefix } = setup();
    const me = await auth.me(testActor({ apiKeyId: KEY_ID }));
    expect(me).toEqual({
      apiKeyId: KEY_ID,
      keyName: 'ci',
      keyPrefix: prefix,
      organizationId: TEST_ORG,
      scope: 'organization',
      scopedProjectId: null,
      permissions: null,
      createdByUserId: USER,
      lastUsedAt: null,
    });
    stores.apiKeys.rows.length = 0;
    expect(await reasonOf(auth.me(testActor({ apiKeyId: KEY_ID })))).toBe('invalid_key');
  });

  it("confirms a service token's actor while the key grants the same, and refuses it once revoked or changed", async () => {
    const { auth, key, stores, org, user } = setup();
    const { actor } = await auth.authenticate(key, 'r');
    expect(await auth.currentActor(actor)).toMatchObject({ apiKeyId: KEY_ID, role: 'developer' });

    // The creator's role changed: the gateway authorized with grants the key no longer has.
    user.role = 'viewer';
    expect(await reasonOf(auth.currentActor(actor))).toBe('actor_changed');
    user.role = 'developer';
    org.apiEnabled = false;
    expect(await reasonOf(auth.currentActor(actor))).toBe('actor_changed');
    org.apiEnabled = true;
    // A narrower actor (a portal session's, docs/portal.md) is confirmed as it is; a wider one is refused.
    const narrower = { ...actor, permissions: [actor.permissions[0]], scope: 'project', scopedProjectId: randomUUID() };
    expect(await auth.currentActor(narrower)).toMatchObject({ permissions: narrower.permissions, scope: 'project' });
    // The session it names travels on for the audit; it never rides on an OAuth grant's actor.
    const portalSessionId = randomUUID();
    expect(await auth.currentActor({ ...narrower, portalSessionId })).toMatchObject({ portalSessionId });
    // With the organization's API off, a key's actor is actor_changed (the gateway authenticates the key
    // again and answers 403); a portal session's, which has no key to authenticate again, 403 at once.
    org.apiEnabled = false;
    expect(await reasonOf(auth.currentActor(narrower))).toBe('actor_changed');
    expect(await reasonOf(auth.currentActor({ ...narrower, portalSessionId }))).toBe('forbidden');
    org.apiEnabled = true;
    expect(await reasonOf(auth.currentActor({ ...actor, portalSessionId, permissions: [...actor.permissions, 'made:up'] }))).toBe(
      'actor_changed',
    );
    expect(await reasonOf(auth.currentActor({ ...actor, permissions: [...actor.permissions, 'made:up'] }))).toBe('actor_changed');
    expect(await reasonOf(auth.currentActor({ ...actor, role: 'admin' }))).toBe('actor_changed');

    stores.apiKeys.rows[0].revokedAt = new Date();
    expect(await reasonOf(auth.currentActor(actor))).toBe('key_revoked');
    stores.apiKeys.rows.length = 0;
    expect(await reasonOf(auth.currentActor(actor))).toBe('invalid_key');
  });
});
