import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../fake-stores.ts';
import { AdminError, createOperations } from './operations.ts';

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

  it('runs key and session commands through the credentials rules (features/credentials)', async () => {
    const { stores, ops, orgId, admin, dev, project } = await setUp();
    const key = await ops.createKey({ user: admin.id, name: 'ci' });
    const revoked = await ops.revokeKey(key.id);
    expect(revoked.id).toBe(key.id);
    expect(Date.parse(revoked.revokedAt)).toBeGreaterThan(0);
    await expect(ops.createKey({ user: dev.id, project: project.id })).rejects.toThrow(
      'the user is not a member of this project',
    );
    await ops.addMember(project.id, dev.id);
    await ops.addMember(project.id, dev.id);
    expect(stores.members.rows).toHaveLength(1);
    expect((await ops.createKey({ user: dev.id, project: project.id })).prefix).toMatch(/^fbk_/);
    expect((await ops.createSession(admin.id)).token).toMatch(/^[\w-]{43}$/);
    expect(stores.sessions.rows).toHaveLength(1);
    expect(stores.written.flatMap((w) => w.events.map((e) => [e.eventName, e.organizationId]))).toEqual([
      ['api_key.created', orgId],
      ['api_key.revoked', orgId],
      ['api_key.created', orgId],
    ]);
  });

  it('creates the demo organization once and mints a fresh admin key each time', async () => {
    const stores = createFakeStores();
    const ops = createOperations(stores);
    const first = await ops.demo();
    const second = await ops.demo();
    expect(second.organizationId).toBe(first.organizationId);
    expect(second.apiKey.key).not.toBe(first.apiKey.key);
    expect(first.users.map((u) => u.role)).toEqual(['admin', 'developer', 'client']);
    expect(first.projects.map((p) => p.name)).toEqual(['Demo Project']);
    expect(stores.members.rows).toHaveLength(2);
  });
});
