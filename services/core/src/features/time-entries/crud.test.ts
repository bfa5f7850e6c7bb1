import { describe, expect, it } from 'vitest';
import { OTHER_ORG, reasonOf, testActor } from '../../shared/test-kit.ts';
import { developer, setUp } from './test-world.ts';

describe('time entry CRUD: lists, get, create and edit (fake stores)', () => {
  it('logs a draft entry: audit created, time.logged with the spec payload', async () => {
    const { stores, project, user, time } = await setUp();
    const { resource, created } = await time.create(testActor(), project.id, {
      userId: user.id,
      workDate: '2026-03-05',
      hours: '2.5',
    });
    expect(created).toBe(true);
    expect(resource).toMatchObject({
      status: 'draft',
      minutes: 150,
      hours: '2.50',
      workDate: '2026-03-05',
      billable: true,
      source: 'api',
    });
    expect(stores.written).toHaveLength(1);
    expect(stores.written[0].rows[0].row).toMatchObject({
      action: 'created',
      entityType: 'time_entry',
      entityName: '2.50h on 2026-03-05',
      projectId: project.id,
    });
    expect(stores.written[0].events).toHaveLength(1);
    expect(stores.written[0].events[0]).toMatchObject({
      eventName: 'time.logged',
      entityId: resource.id,
      projectId: project.id,
      actorUserId: 'u1',
      payload: {
        timeEntryId: resource.id,
        userId: user.id,
        minutes: 150,
        hours: '2.50',
        status: 'draft',
        entryId: null,
      },
    });
  });

  it('refuses a bad body with every problem (400) and an unknown user (404), writing nothing', async () => {
    const { stores, project, other, user, time } = await setUp();
    stores.timeEntries.workItems.push({ kind: 'entry', id: '00000000-0000-4000-8000-0000000000e1', projectId: other.id });
    const bad = time.create(testActor(), project.id, {
      userId: user.id,
      workDate: '2026-02-30',
      entryId: '00000000-0000-4000-8000-0000000000e1',
    });
    await expect(bad).rejects.toMatchObject({
      reason: 'validation_error',
      details: {
        errors: [
          expect.objectContaining({ path: '/minutes' }),
          expect.objectContaining({ path: '/workDate' }),
          expect.objectContaining({ path: '/entryId' }),
        ],
      },
    });
    expect(await reasonOf(time.create(testActor(), project.id, { userId: OTHER_ORG, workDate: '2026-03-05', minutes: 10 }))).toBe(
      'not_found',
    );
    expect(stores.written).toHaveLength(0);
    expect(stores.timeEntries.rows).toHaveLength(0);
  });

  it('emits time.updated with the changed fields only (hours moves with minutes); audits an unchanged edit without event', async () => {
    const { stores, project, user, time } = await setUp();
    const { resource } = await time.create(testActor(), project.id, {
      userId: user.id,
      workDate: '2026-03-05',
      minutes: 60,
      description: 'a',
    });
    const id = resource.id as string;
    const updated = await time.update(developer, id, { hours: '1.5', description: 'a', workDate: '2026-03-06' });
    expect(updated).toMatchObject({ minutes: 90, hours: '1.50', workDate: '2026-03-06' });
    await time.update(developer, id, { minutes: 90 });
    const [, changed, unchanged] = stores.written;
    expect(changed.events.map((e) => [e.eventName, e.payload.changedFields])).toEqual([
      ['time.updated', ['workDate', 'hours', 'minutes']],
    ]);
    expect(unchanged.events).toEqual([]);
    expect(unchanged.rows[0].row).toMatchObject({ action: 'updated', metadata: { changedFields: [] } });
  });

  it('makes a create with an externalRef an upsert: the link first, then time.logged; a repeat answers the same entry', async () => {
    const { stores, project, other, user, time } = await setUp();
    const externalRef = { provider: 'harvest', externalType: 'time', externalId: 'T-1' };
    const body = { userId: user.id, workDate: '2026-03-05', minutes: 30, externalRef };
    const first = await time.create(testActor(), project.id, body);
    const again = await time.create(testActor(), project.id, { ...body, minutes: 45 });
    expect(again).toEqual({ resource: first.resource, created: false });
    expect(stores.written).toHaveLength(1);
    const [write] = stores.written;
    expect(write.events.map((e) => e.eventName)).toEqual(['integration_link.created', 'time.logged']);
    expect(write.events[0].payload).toMatchObject({
      provider: 'harvest',
      alignEntityType: 'time_entry',
      alignEntityId: first.resource.id,
    });
    expect(write.rows[0].row.metadata).toMatchObject({ integrationLinkId: write.events[0].entityId });
    expect(await reasonOf(time.create(testActor(), other.id, body))).toBe('conflict');
    const got = await time.get(testActor(), first.resource.id as string);
    expect(got.integrationLinks).toEqual([expect.objectContaining({ externalId: 'T-1', alignEntityType: 'time_entry' })]);
  });

  it("hides another organization's entries (404) and confines a project key to its project", async () => {
    const { stores, project, other, user, time } = await setUp();
    const mine = (await time.create(testActor(), project.id, { userId: user.id, workDate: '2026-03-05', minutes: 10 })).resource;
    const theirs = (await time.create(testActor(), other.id, { userId: user.id, workDate: '2026-03-05', minutes: 10 })).resource;
    expect(await reasonOf(time.get(testActor({ organizationId: OTHER_ORG }), mine.id as string))).toBe('not_found');
    const key = testActor({ scope: 'project', scopedProjectId: project.id });
    expect(await reasonOf(time.get(key, theirs.id as string))).toBe('not_found');
    expect(await reasonOf(time.submit(key, theirs.id as string))).toBe('not_found');
    expect(await reasonOf(time.create(key, other.id, { userId: user.id, workDate: '2026-03-05', minutes: 10 }))).toBe(
      'scope_violation',
    );
    expect(await reasonOf(time.list(key, other.id, {}, { page: 1, pageSize: 25 }))).toBe('scope_violation');
    const page = await time.list(key, undefined, {}, { page: 1, pageSize: 25 });
    expect(page.data.map((e) => e.id)).toEqual([mine.id]);
    expect(stores.timeEntries.rows).toHaveLength(2);
  });

  it('filters lists by status, ids and a workDate range, refusing malformed filters (400)', async () => {
    const { project, user, time } = await setUp();
    for (const workDate of ['2026-03-01', '2026-03-05', '2026-03-09'])
      await time.create(testActor(), project.id, { userId: user.id, workDate, minutes: 10 });
    const page = await time.list(
      testActor(),
      project.id,
      { from: '2026-03-02', to: '2026-03-09', status: 'draft', userId: user.id },
      { page: 1, pageSize: 25 },
    );
    expect(page.data.map((e) => e.workDate).sort()).toEqual(['2026-03-05', '2026-03-09']);
    expect(await reasonOf(time.list(testActor(), project.id, { userId: 'nope' }, { page: 1, pageSize: 25 }))).toBe(
      'validation_error',
    );
    expect(await reasonOf(time.list(testActor(), project.id, { from: '2026-13-01' }, { page: 1, pageSize: 25 }))).toBe(
      'validation_error',
    );
  });
});
