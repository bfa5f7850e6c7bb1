import { describe, expect, it } from 'vitest';
import type { UserUpdateBody } from '@cluster/contracts';
import { createOperations } from '../../admin/operations.ts';
import { createFakeStores, type FakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, TEST_ORG, reasonOf, testActor, unvalidated, like, containing, anyString } from '../../shared/test-kit.ts';
import { createInviteService, type BulkItem } from './invite.ts';
import { createUserService } from './service.ts';

const page = { page: 1, pageSize: 25 };

async function setUp() {
  const stores = createFakeStores();
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site', description: '' });
  const other = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Other', description: '' });
  const foreignProject = await stores.projects.insert({
    organizationId: OTHER_ORG,
    clientId: OTHER_ORG,
    name: 'Theirs',
    description: '',
  });
  const ada = await stores.users.insert({ organizationId: TEST_ORG, email: 'Ada@Example.test', name: 'Ada', role: 'developer' });
  const bob = await stores.users.insert({ organizationId: TEST_ORG, email: 'bob@example.test', name: 'Bob', role: 'client' });
  const eve = await stores.users.insert({ organizationId: OTHER_ORG, email: 'eve@example.test', name: 'Eve', role: 'admin' });
  await stores.members.insert({ projectId: project.id, userId: ada.id });
  return {
    stores,
    project,
    other,
    foreignProject,
    ada,
    bob,
    eve,
    users: createUserService(stores),
    invites: createInviteService(stores),
    ops: createOperations(stores),
  };
}

const eventNames = (stores: FakeStores) => stores.written.flatMap((w) => w.events.map((e) => e.eventName));

describe('user rules (fake stores)', () => {
  it("lists the organization's users (a role filter narrows), never another organization's", async () => {
    const { ada, bob, users } = await setUp();
    const all = await users.list(testActor(), {}, page);
    expect(all.data.map((u) => u.id).sort()).toEqual([ada.id, bob.id].sort());
    expect((await users.list(testActor(), { role: 'client' }, page)).data.map((u) => u.id)).toEqual([bob.id]);
    expect(Object.keys(all.data[0]).sort()).toEqual([
      'createdAt',
      'email',
      'id',
      'metadata',
      'name',
      'organizationId',
      'role',
      'updatedAt',
    ]);
  });

  it('shows a project key only the members of its project; another organization nothing (404)', async () => {
    const { project, ada, bob, eve, users } = await setUp();
    const key = testActor({ scope: 'project', scopedProjectId: project.id });
    expect((await users.get(key, ada.id)).id).toBe(ada.id);
    expect(await reasonOf(users.get(key, bob.id))).toBe('not_found');
    expect((await users.list(key, {}, page)).data.map((u) => u.id)).toEqual([ada.id]);
    expect(await reasonOf(users.get(testActor(), eve.id))).toBe('not_found');
    expect(await reasonOf(users.update(testActor(), eve.id, { name: 'x' }))).toBe('not_found');
  });

  it('emits user.updated with the changed fields only when something changed, and audits either way', async () => {
    const { stores, ada, users } = await setUp();
    // role: not updatable through the API, so the gateway refuses it; the core must ignore it all the same.
    const body = unvalidated<UserUpdateBody>({ name: 'Ada L.', metadata: null, role: 'admin' });
    const updated = await users.update(testActor(), ada.id, body);
    expect(updated).toMatchObject({ name: 'Ada L.', role: 'developer' });
    await users.update(testActor(), ada.id, { name: 'Ada L.' });
    const [changed, unchanged] = stores.written;
    expect(changed.events).toEqual([
      like({
        eventName: 'user.updated',
        entityId: ada.id,
        actorUserId: 'u1',
        payload: like({
          userId: ada.id,
          name: 'Ada L.',
          role: 'developer',
          actorId: 'u1',
          changedFields: ['name'],
        }),
      }),
    ]);
    expect(changed.rows[0].row).toMatchObject({
      entityType: 'user',
      action: 'updated',
      entityName: 'Ada L.',
      metadata: like({ actorType: 'api_key' }),
    });
    expect(unchanged.events).toEqual([]);
    expect(unchanged.rows[0].row.metadata).toMatchObject({ changedFields: [] });
  });

  it("changes a role only through the operator: user.updated ['role'] with no acting user; the same role writes nothing", async () => {
    const { stores, ada, ops } = await setUp();
    expect(await ops.setRole(ada.id, 'manager')).toEqual({ id: ada.id, role: 'manager' });
    expect(await ops.setRole(ada.id, 'manager')).toEqual({ id: ada.id, role: 'manager' });
    expect(stores.written).toHaveLength(1);
    expect(stores.written[0].rows).toEqual([]);
    expect(stores.written[0].events).toEqual([
      like({
        eventName: 'user.updated',
        organizationId: TEST_ORG,
        actorUserId: null,
        payload: like({ role: 'manager', actorId: null, changedFields: ['role'] }),
      }),
    ]);
    await expect(ops.setRole(ada.id, 'wizard')).rejects.toThrow('unknown role wizard');
    await expect(ops.setRole(OTHER_ORG, 'admin')).rejects.toThrow('unknown user');
  });
});

describe('invite rules (fake stores)', () => {
  it('creates the user (role user), its memberships and an invitation: project_member.added, then user.invited', async () => {
    const { stores, project, other, invites } = await setUp();
    const res = await invites.invite(testActor(), {
      email: ' new@example.test ',
      name: 'New',
      projectIds: [project.id, other.id, project.id],
    });
    expect(res).toEqual({ userId: anyString, inviteId: anyString, created: true, status: 'invited' });
    expect(await stores.users.find(TEST_ORG, res.userId)).toMatchObject({ email: 'new@example.test', role: 'user' });
    expect(stores.users.invites).toEqual([like({ id: res.inviteId, userId: res.userId, invitedByUserId: 'u1', apiKeyId: 'k1' })]);
    expect(eventNames(stores)).toEqual(['project_member.added', 'project_member.added', 'user.invited']);
    const audit = stores.written.flatMap((w) => w.rows.map((r) => r.row));
    expect(audit).toEqual([
      like({
        action: 'invited',
        entityId: res.userId,
        metadata: like({ status: 'invited', created: true, inviteId: res.inviteId }),
      }),
    ]);
  });

  it('sends no invitation when asked not to', async () => {
    const { stores, invites } = await setUp();
    expect(await invites.invite(testActor(), { email: 'quiet@example.test', name: 'Q', sendInvite: false })).toMatchObject({
      created: true,
      inviteId: null,
    });
    expect(stores.users.invites).toEqual([]);
  });

  it('refuses admin roles and projects outside the organization (400), writing nothing', async () => {
    const { stores, project, foreignProject, invites } = await setUp();
    expect(await reasonOf(invites.invite(testActor(), { email: 'a@example.test', name: 'A', role: 'admin' }))).toBe(
      'validation_error',
    );
    await expect(
      invites.invite(testActor(), { email: 'a@example.test', name: 'A', projectIds: [project.id, foreignProject.id] }),
    ).rejects.toMatchObject({
      reason: 'validation_error',
      details: { errors: [{ path: '/projectIds/1', message: 'is not a project of this organization' }] },
    });
    expect(stores.written).toEqual([]);
    expect(stores.users.rows).toHaveLength(3);
  });

  it('answers an existing e-mail (any case) with that user, created false, audited as invite_matched and without event', async () => {
    const { stores, ada, invites } = await setUp();
    expect(await invites.invite(testActor(), { email: 'ADA@example.TEST', name: 'Whoever', role: 'client' })).toEqual({
      userId: ada.id,
      inviteId: null,
      created: false,
      status: 'existing',
    });
    expect(stores.written).toEqual([
      like({
        events: [],
        rows: [like({ row: like({ action: 'invite_matched' }) })],
      }),
    ]);
  });

  it('links an externalRef to an existing user (user.linked), and answers the linked user on a repeat', async () => {
    const { stores, ada, invites } = await setUp();
    const externalRef = { provider: 'okta', externalType: 'user', externalId: 'O-1' };
    expect(await invites.invite(testActor(), { email: 'ada@example.test', name: 'Ada', externalRef })).toEqual({
      userId: ada.id,
      inviteId: null,
      created: false,
      status: 'linked',
    });
    expect(await invites.invite(testActor(), { email: 'other@example.test', name: 'Other', externalRef })).toEqual({
      userId: ada.id,
      inviteId: null,
      created: false,
      status: 'linked',
    });
    expect(eventNames(stores)).toEqual(['integration_link.created', 'user.linked']);
    const linked = stores.written.flatMap((w) => w.events).find((e) => e.eventName === 'user.linked');
    expect(linked?.payload).toMatchObject({
      userId: ada.id,
      provider: 'okta',
      externalId: 'O-1',
      integrationLinkId: anyString,
    });
    expect(stores.written.flatMap((w) => w.rows.map((r) => r.row.action))).toEqual(['linked', 'invite_matched']);
    expect(stores.users.rows).toHaveLength(3);
  });

  it('refuses an externalRef already linked to something other than a user (409)', async () => {
    const { stores, invites } = await setUp();
    await stores.wiki.insertExternalLink({
      organizationId: TEST_ORG,
      projectId: null,
      ref: { provider: 'okta', externalType: 'user', externalId: 'W' },
      alignEntityType: 'wiki_page',
      alignEntityId: 'p1',
    });
    expect(
      await reasonOf(
        invites.invite(testActor(), {
          email: 'w@example.test',
          name: 'W',
          externalRef: { provider: 'okta', externalType: 'user', externalId: 'W' },
        }),
      ),
    ).toBe('conflict');
  });

  it('answers a bulk invite per item in index order, counts, audits each success (bulk) and emits one user.bulk_invited', async () => {
    const { stores, ada, foreignProject, invites } = await setUp();
    const items: BulkItem[] = [
      { index: 2, item: { email: 'c@example.test', name: 'C', projectIds: [foreignProject.id] } },
      { index: 0, item: { email: 'a@example.test', name: 'A' } },
      { index: 1, item: { email: 'ada@example.test', name: 'Ada' } },
      { index: 3, error: '/email: must match format "email"', item: { email: 'broken' } },
    ];
    const res = await invites.bulkInvite(testActor(), { invites: items, sendInvite: false });
    expect(res.successCount).toBe(2);
    expect(res.failureCount).toBe(2);
    expect(res.results).toEqual([
      { email: 'a@example.test', status: 'invited', userId: anyString, inviteId: null, error: null },
      { email: 'ada@example.test', status: 'existing', userId: ada.id, inviteId: null, error: null },
      {
        email: 'c@example.test',
        status: 'error',
        userId: null,
        inviteId: null,
        error: '/projectIds/0: is not a project of this organization',
      },
      { email: 'broken', status: 'error', userId: null, inviteId: null, error: '/email: must match format "email"' },
    ]);
    expect(
      stores.written.flatMap((w) => w.rows.map((r) => [r.row.action, (r.row.metadata as Record<string, unknown>).bulk])),
    ).toEqual([
      ['invited', true],
      ['invite_matched', true],
    ]);
    expect(eventNames(stores)).toEqual(['user.bulk_invited']);
    const [bulk] = stores.written.flatMap((w) => w.events);
    expect(bulk).toMatchObject({
      entityType: 'organization',
      entityId: TEST_ORG,
      payload: {
        successCount: 2,
        failureCount: 2,
        actorId: 'u1',
        users: [like({ email: 'a@example.test', status: 'invited', created: true }), like({ userId: ada.id, created: false })],
      },
    });
  });

  it('emits no user.bulk_invited when every item failed', async () => {
    const { stores, invites } = await setUp();
    const item = { email: 'x@example.test', name: 'X', role: 'admin' } as const;
    const res = await invites.bulkInvite(testActor(), { invites: [{ index: 0, item }], sendInvite: false });
    expect(res).toMatchObject({
      successCount: 0,
      failureCount: 1,
      results: [like({ status: 'error', error: containing('/role') })],
    });
    expect(stores.written).toEqual([]);
  });
});
