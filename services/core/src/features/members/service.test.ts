import { describe, expect, it } from 'vitest';
import type { MemberCreateBody } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { answerOf, OTHER_ORG, TEST_ORG, reasonOf, testActor, unvalidated, like, anyString } from '../../shared/test-kit.ts';
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
      id: anyString,
      projectId: project.id,
      userId: ada.id,
      roleOverride: 'tech_lead',
      metadata: { a: 1 },
      createdAt: anyString,
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
      like({
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
    expect(unchanged.rows[0].row).toMatchObject({ action: 'updated', metadata: like({ changedFields: [] }) });
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

  it("no cross-tenant oracle: another organization's user, project or member answers as a random id does", async () => {
    const { stores, project, ada, eve, members } = await setUp();
    const RANDOM = '30000000-0000-4000-8000-000000000009';
    const theirProject = await stores.projects.insert({
      organizationId: OTHER_ORG,
      clientId: OTHER_ORG,
      name: 'B',
      description: '',
    });
    const theirMember = await members.add(testActor({ organizationId: OTHER_ORG }), theirProject.id, { userId: eve.id });
    const writes = stores.written.length;
    // userId: the same 404 for a user of another organization and for no user at all.
    const foreignUser = await answerOf(members.add(testActor(), project.id, { userId: eve.id }));
    expect(foreignUser).toEqual({ status: 404, reason: 'not_found', message: 'user not found', details: null });
    expect(await answerOf(members.add(testActor(), project.id, { userId: RANDOM }))).toEqual(foreignUser);
    // Their project in the path: 404 project whatever the body names, before the user is looked at.
    const projectGone = { status: 404, reason: 'not_found', message: 'project not found', details: null };
    for (const userId of [ada.id, eve.id, RANDOM]) {
      expect(await answerOf(members.add(testActor(), theirProject.id, { userId }))).toEqual(projectGone);
    }
    for (const projectId of [theirProject.id, RANDOM]) {
      expect(
        await answerOf(members.update(testActor(), projectId, theirMember.id as string, { roleOverride: 'tech_lead' })),
      ).toEqual(projectGone);
    }
    // Their member under my project: the same 404 as a random member id.
    const foreignMember = await answerOf(members.remove(testActor(), project.id, theirMember.id as string));
    expect(foreignMember).toMatchObject({ status: 404, reason: 'not_found' });
    expect(await answerOf(members.remove(testActor(), project.id, RANDOM))).toEqual(foreignMember);
    expect(stores.written).toHaveLength(writes);
  });
});
