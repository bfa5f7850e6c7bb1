import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { createKeyRules } from './keys.ts';

async function setUp() {
  const stores = createFakeStores();
  const keys = createKeyRules(stores);
  const { id: orgId } = await stores.organizations.insert('Acme');
  const admin = await stores.users.insert({ organizationId: orgId, email: 'admin@acme.test', name: 'Admin', role: 'admin' });
  const dev = await stores.users.insert({ organizationId: orgId, email: 'dev@acme.test', name: 'Dev', role: 'developer' });
  const project = await stores.projects.insert({ organizationId: orgId, clientId: orgId, name: 'Site', description: '' });
  return { stores, keys, orgId, admin, dev, project };
}

describe('API key rules: minting and revoking (fake stores)', () => {
  it('mints keys under the spec rules, emitting api_key.created by the key user', async () => {
    const { stores, keys, orgId, admin, dev, project } = await setUp();
    const key = await keys.mint({ user: admin.id, name: 'ci', permissions: 'read:project' });
    expect(Object.keys(key).sort()).toEqual(['id', 'key', 'prefix']);
    expect(key.prefix).toMatch(/^fbk_\w{8}$/);
    expect(key.key.startsWith(`${key.prefix}_`)).toBe(true);
    expect(stores.apiKeys.rows[0]).toMatchObject({
      scope: 'organization',
      scopedProjectId: null,
      permissions: ['read:project'],
      createdByUserId: admin.id,
    });
    expect(stores.written).toEqual([
      {
        rows: [],
        events: [
          expect.objectContaining({
            eventName: 'api_key.created',
            organizationId: orgId,
            actorUserId: admin.id,
            entityId: key.id,
            payload: {
              apiKeyId: key.id,
              organizationId: orgId,
              prefix: key.prefix,
              scope: 'organization',
              scopedProjectId: null,
              createdByUserId: admin.id,
            },
          }),
        ],
      },
    ]);
    await expect(keys.mint({ user: dev.id, scope: 'organization' })).rejects.toThrow(
      'role developer cannot mint organization-scoped keys',
    );
    await expect(keys.mint({ user: dev.id, project: project.id })).rejects.toThrow('the user is not a member of this project');
    await stores.members.insert({ projectId: project.id, userId: dev.id });
    await expect(keys.mint({ user: dev.id, project: project.id, permissions: 'delete:project' })).rejects.toThrow(
      'role developer cannot grant: delete:project',
    );
    await expect(keys.mint({ user: dev.id, project: project.id, permissions: 'fly' })).rejects.toThrow(
      'unknown permissions: fly',
    );
    const scoped = await keys.mint({ user: dev.id, project: project.id });
    expect(stores.written[1].events[0]).toMatchObject({
      projectId: project.id,
      payload: { scope: 'project', scopedProjectId: project.id },
    });
    expect(stores.apiKeys.rows.map((r) => r.id)).toEqual([key.id, scoped.id]);
  });

  it('revokes a key once (api_key.revoked by no user); revoking again keeps the first time and emits nothing', async () => {
    const { stores, keys, orgId, admin } = await setUp();
    const key = await keys.mint({ user: admin.id });
    const first = await keys.revoke(key.id);
    expect(await keys.revoke(key.id)).toEqual(first);
    expect(stores.written.map((w) => w.events.map((e) => [e.eventName, e.actorUserId, e.organizationId]))).toEqual([
      [['api_key.created', admin.id, orgId]],
      [['api_key.revoked', null, orgId]],
    ]);
    await expect(keys.revoke('nope')).rejects.toThrow('unknown key');
  });

  it('stores only the hash of a minted key, and refuses an unknown user', async () => {
    const { stores, keys, admin } = await setUp();
    const minted = await keys.mint({ user: admin.id });
    expect(JSON.stringify(stores.apiKeys.rows)).not.toContain(minted.key);
    expect(stores.apiKeys.rows[0].prefix).toBe(minted.prefix);
    await expect(keys.mint({ user: 'nope' })).rejects.toThrow('unknown user');
    await expect(keys.mint({ user: admin.id, scope: 'team' })).rejects.toThrow('--scope must be organization or project');
  });
});
