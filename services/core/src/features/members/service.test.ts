import { describe, expect, it } from 'vitest';
import type { MemberCreateBody } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, TEST_ORG, reasonOf, testActor, unvalidated } from '../../shared/test-kit.ts';
import { createMemberService } from './service.ts';

async function setUp() {
  const stores = createFakeStores();
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site', description: '' });
  const other = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Other', description: '' });
  const ada = await stores.users.insert({ organizationId: TEST_ORG, email: 'ada@example.test', name: 'Ada', role: 'developer' });
  const eve = await stores.users.insert({ organizationId: OTHER_ORG, email: 'eve@example.test', name: 'Eve', role: 'developer' });
  return { stores, project, other, ada, eve, members: createMemberService(stores) };
}

describe('member rules (fake stores)', () => {
  it('adds a member: audited with the user name, project_member.added with the spec payload', async () => {
    const { stores, project, ada, members } = await setUp();
    // bogus: an unknown property the gateway refuses; the core must ignore it all the same.
    const body = unvalidated<MemberCreateBody>({ userId: ada.id, roleOverride: 'tech_lead', metadata: { a: 1 }, bogus: 1 });
    const m = await members.add(testActor(), project.id, body);
    expect(m).toEqual({
      id: expect.any(String),
      projectId: project.id,
      userId: ada.id,
      roleOverride: 'tech_lead',
      metadata: { a: 1 },
      createdAt: expect.any(String),
    });
    const [write] = stores.written;
    expect(write.rows[0].row).toMatchObject({
      entityType: 'project_member',
      action: 'added',
      entityId: m.id,
      entityName: 'Ada',
      projectId: project.id,
    });
    expect(write.events).toEqual([
      expect.objectContaining({
        eventName: 'project_member.added',
        entityId: m.id,
        projectId: project.id,
        payload: { memberId: m.id, projectId: project.id, userId: ada.id, roleOverride: 'tech_lead', organizationId: TEST_ORG },
      }),
    ]);
  });

  it('refuses a duplicate (409 with the userId) and a user of another organization (404), writing nothing', async () => {
    const { stores, project, ada, eve, members } = await setUp();
    await members.add(testActor(), project.id, { userId: ada.id });
    await expect(members.add(testActor(), project.id, { userId: ada.id })).rejects.toMatchObject({
      reason: 'conflict',
      details: { userId: ada.id },
    });
    expect(await reasonOf(members.add(testActor(), project.id, { userId: eve.id }))).toBe('not_found');
    expect(await reasonOf(members.add(testActor(), project.id, { userId: 'nope' }))).toBe('not_found');
    expect(stores.written).toHaveLength(1);
    expect(stores.members.rows).toHaveLength(1);
  });

  it('emits project_member.updated with the changed fields only when something changed, and removes with project_member.removed', async () => {
    const { stores, project, ada, members } = await setUp();
    const m = await members.add(testActor(), project.id, { userId: ada.id });
    await members.update(testActor(), project.id, m.id as string, { roleOverride: 'tech_lead', metadata: null });
    await members.update(testActor(), project.id, m.id as string, { roleOverride: 'tech_lead' });
    await members.remove(testActor(), project.id, m.id as string);
    const [, changed, unchanged, removed] = stores.written;
    expect(changed.events.map((e) => [e.eventName, e.payload.changedFields, e.payload.roleOverride])).toEqual([
      ['project_member.updated', ['roleOverride'], 'tech_lead'],
    ]);
    expect(unchanged.events).toEqual([]);
    expect(unchanged.rows[0].row).toMatchObject({ action: 'updated', metadata: expect.objectContaining({ changedFields: [] }) });
    expect(removed.events.map((e) => e.eventName)).toEqual(['project_member.removed']);
    expect(removed.rows[0].row).toMatchObject({ action: 'removed', entityId: m.id });
    expect(stores.members.rows).toEqual([]);
  });

  it('finds a member only under its own project (404), and confines a project key to its project (403)', async () => {
    const { stores, project, other, ada, members } = await setUp();
    const m = await members.add(testActor(), project.id, { userId: ada.id });
    expect(await reasonOf(members.update(testActor(), other.id, m.id as string, { roleOverride: 'tech_lead' }))).toBe(
      'not_found',
    );
    expect(await reasonOf(members.remove(testActor(), other.id, m.id as string))).toBe('not_found');
    const key = testActor({ scope: 'project', scopedProjectId: other.id });
    expect(await reasonOf(members.list(key, project.id, { page: 1, pageSize: 25 }))).toBe('scope_violation');
    expect(await reasonOf(members.add(key, project.id, { userId: ada.id }))).toBe('scope_violation');
    expect(await reasonOf(members.list(testActor({ organizationId: OTHER_ORG }), project.id, { page: 1, pageSize: 25 }))).toBe(
      'not_found',
    );
    expect((await members.list(testActor(), project.id, { page: 1, pageSize: 25 })).data.map((r) => r.id)).toEqual([m.id]);
    expect(stores.written).toHaveLength(1);
  });
});
