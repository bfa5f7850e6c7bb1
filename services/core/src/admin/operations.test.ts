import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../fake-stores.ts';
import { AdminError, createOperations } from './operations.ts';
import { anyString, like, matching } from '../shared/test-kit.ts';

async function setUp() {
  const stores = createFakeStores();
  const ops = createOperations(stores);
  const { id: orgId } = await ops.createOrg('Acme');
  const admin = await ops.createUser(orgId, 'admin@acme.test', 'Admin', 'admin');
  const dev = await ops.createUser(orgId, 'dev@acme.test', 'Dev', 'developer');
  const project = await stores.projects.insert({ organizationId: orgId, clientId: orgId, name: 'Site', description: '' });
  return { stores, ops, orgId, admin, dev, project };
}

describe('admin CLI operations (fake stores)', () => {
  it('creates organizations and users, and turns API access off, writing no audit or events', async () => {
    const { stores, ops, orgId } = await setUp();
    expect(await ops.setApiEnabled(orgId, false)).toEqual({ id: orgId, apiEnabled: false });
    await expect(ops.setApiEnabled('00000000-0000-4000-8000-00000000dead', true)).rejects.toThrow(
      new AdminError('unknown organization'),
    );
    await expect(ops.createUser(orgId, 'x@acme.test', 'X', 'wizard')).rejects.toThrow('unknown role wizard');
    await expect(ops.createUser('nope', 'x@acme.test', 'X', 'user')).rejects.toThrow('unknown organization');
    await expect(ops.createOrg('')).rejects.toThrow('--name is required');
    expect(stores.written).toEqual([]);
  });

  it('mints keys under the spec rules, emitting api_key.created by the key user', async () => {
    const { stores, ops, orgId, admin, dev, project } = await setUp();
    const key = await ops.createKey({ user: admin.id, name: 'ci', permissions: 'read:project' });
    expect(key).toEqual({ id: anyString, key: matching(/^fbk_/), prefix: matching(/^fbk_/) });
    expect(key.key.startsWith(key.prefix)).toBe(true);
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
          like({
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
    await expect(ops.createKey({ user: dev.id, scope: 'organization' })).rejects.toThrow(
      'role developer cannot mint organization-scoped keys',
    );
    await expect(ops.createKey({ user: dev.id, project: project.id })).rejects.toThrow(
      'the user is not a member of this project',
    );
    await ops.addMember(project.id, dev.id);
    await ops.addMember(project.id, dev.id);
    expect(stores.members.rows).toHaveLength(1);
    await expect(ops.createKey({ user: dev.id, project: project.id, permissions: 'delete:project' })).rejects.toThrow(
      'role developer cannot grant: delete:project',
    );
    await expect(ops.createKey({ user: dev.id, project: project.id, permissions: 'fly' })).rejects.toThrow(
      'unknown permissions: fly',
    );
    const scoped = await ops.createKey({ user: dev.id, project: project.id });
    expect(stores.written[1].events[0]).toMatchObject({
      projectId: project.id,
      payload: { scope: 'project', scopedProjectId: project.id },
    });
    expect(stores.apiKeys.rows.map((r) => r.id)).toEqual([key.id, scoped.id]);
  });

  it('revokes a key once (api_key.revoked by no user); revoking again keeps the first time and emits nothing', async () => {
    const { stores, ops, orgId, admin } = await setUp();
    const key = await ops.createKey({ user: admin.id });
    const first = await ops.revokeKey(key.id);
    expect(await ops.revokeKey(key.id)).toEqual(first);
    expect(stores.written.map((w) => w.events.map((e) => [e.eventName, e.actorUserId, e.organizationId]))).toEqual([
      [['api_key.created', admin.id, orgId]],
      [['api_key.revoked', null, orgId]],
    ]);
    await expect(ops.revokeKey('nope')).rejects.toThrow('unknown key');
  });

  it('creates the demo organization once and mints a fresh admin key each time', async () => {
    const stores = createFakeStores();
    const ops = createOperations(stores);
    const first = await ops.demo();
    const second = await ops.demo();
    expect(second.organizationId).toBe(first.organizationId);
    expect(second.apiKey.key).not.toBe(first.apiKey.key);
    expect(first.users.map((u) => u.role)).toEqual(['admin', 'developer', 'client']);
    expect(first.projects).toEqual([{ id: anyString, name: 'Demo Project' }]);
    expect(stores.members.rows).toHaveLength(2);
  });
});
