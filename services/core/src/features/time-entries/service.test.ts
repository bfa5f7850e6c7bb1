import { describe, expect, it } from 'vitest';
import type { TimeEntryReasonBody } from '@cluster/contracts';
import { createFakeStores, type FakeStores } from '../../fake-stores.ts';
import { answerOf, OTHER_ORG, TEST_ORG, reasonOf, testActor, unvalidated, like } from '../../shared/test-kit.ts';
import { createTimeEntryService } from './service.ts';

const manager = testActor({ role: 'manager', userId: 'm1' });
const developer = testActor({ role: 'developer', userId: 'd1' });

/** Fake stores with a project, a user to log time for, and the service over them. */
async function setUp() {
  const stores = createFakeStores();
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site', description: '' });
  const other = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Other', description: '' });
  const user = await stores.users.insert({ organizationId: TEST_ORG, email: 'ada@example.test', name: 'Ada', role: 'developer' });
  return { stores, project, other, user, time: createTimeEntryService(stores) };
}

const events = (stores: FakeStores) => stores.written.flatMap((w) => w.events.map((e) => e.eventName));
const audits = (stores: FakeStores) => stores.written.flatMap((w) => w.rows.map((r) => r.row));

describe('time entry rules (fake stores)', () => {
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
    expect(stores.written[0].events).toEqual([
      like({
        eventName: 'time.logged',
        entityId: resource.id,
        projectId: project.id,
        actorUserId: 'u1',
        payload: like({
          timeEntryId: resource.id,
          userId: user.id,
          minutes: 150,
          hours: '2.50',
          status: 'draft',
          entryId: null,
        }),
      }),
    ]);
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
        errors: [like({ path: '/minutes' }), like({ path: '/workDate' }), like({ path: '/entryId' })],
      },
    });
    expect(await reasonOf(time.create(testActor(), project.id, { userId: OTHER_ORG, workDate: '2026-03-05', minutes: 10 }))).toBe(
      'not_found',
    );
    expect(stores.written).toHaveLength(0);
    expect(stores.timeEntries.rows).toHaveLength(0);
  });

  it('walks the state machine with one event and one audit record per move', async () => {
    const { stores, project, user, time } = await setUp();
    const { resource } = await time.create(testActor(), project.id, { userId: user.id, workDate: '2026-03-05', minutes: 60 });
    const id = resource.id as string;
    expect((await time.submit(developer, id)).resource.status).toBe('submitted');
    expect((await time.reject(manager, id, { reason: ' too vague ' })).resource.status).toBe('rejected');
    expect((await time.submit(developer, id)).resource.status).toBe('submitted');
    expect((await time.approve(manager, id, { note: 'ok' })).resource.status).toBe('locked');
    expect((await time.unlock(manager, id, { reason: 'typo' })).resource.status).toBe('draft');
    expect(events(stores)).toEqual([
      'time.logged',
      'time.submitted',
      'time.rejected',
      'time.submitted',
      'time.approved',
      'time.unlocked',
    ]);
    expect(
      audits(stores).map((a) => [
        a.action,
        (a.metadata as Record<string, unknown>).previousStatus,
        (a.metadata as Record<string, unknown>).newStatus,
      ]),
    ).toEqual([
      ['created', undefined, undefined],
      ['submitted', 'draft', 'submitted'],
      ['rejected', 'submitted', 'rejected'],
      ['submitted', 'rejected', 'submitted'],
      ['approved', 'submitted', 'locked'],
      ['unlocked', 'locked', 'draft'],
    ]);
    const payloads = stores.written.map((w) => w.events[0].payload);
    expect(payloads[2]).toMatchObject({ status: 'rejected', rejecterUserId: 'm1', reason: 'too vague' });
    expect(payloads[4]).toMatchObject({ status: 'locked', approverUserId: 'm1' });
    expect(payloads[5]).toMatchObject({ status: 'locked', newStatus: 'draft', unlockedByUserId: 'm1', reason: 'typo' });
    expect(audits(stores)[4].metadata).toMatchObject({ note: 'ok' });
  });

  it('refuses moves the machine does not allow (409 with the current status) and writes nothing for them', async () => {
    const { stores, project, user, time } = await setUp();
    const { resource } = await time.create(testActor(), project.id, { userId: user.id, workDate: '2026-03-05', minutes: 60 });
    const id = resource.id as string;
    await expect(time.approve(manager, id, {})).rejects.toMatchObject({
      reason: 'conflict',
      details: { currentStatus: 'draft', allowedFrom: ['submitted'] },
    });
    expect(await reasonOf(time.unlock(manager, id, { reason: 'x' }))).toBe('conflict');
    await time.submit(developer, id);
    expect(await reasonOf(time.submit(developer, id))).toBe('conflict');
    expect(await reasonOf(time.update(developer, id, { minutes: 5 }))).toBe('conflict');
    expect(events(stores)).toEqual(['time.logged', 'time.submitted']);
  });

  it('lets only managers and admins approve, reject and unlock, and requires a reason to reject or unlock', async () => {
    const { stores, project, user, time } = await setUp();
    const { resource } = await time.create(testActor(), project.id, { userId: user.id, workDate: '2026-03-05', minutes: 60 });
    const id = resource.id as string;
    await time.submit(developer, id);
    for (const role of ['developer', 'user', 'client']) {
      expect(await reasonOf(time.approve(testActor({ role }), id, {}))).toBe('forbidden');
      expect(await reasonOf(time.reject(testActor({ role }), id, { reason: 'no' }))).toBe('forbidden');
    }
    expect(await reasonOf(time.reject(manager, id, { reason: '   ' }))).toBe('validation_error');
    expect(await reasonOf(time.approve(testActor({ role: 'platform_admin' }), id, {}))).toBe('no error');
    expect(await reasonOf(time.unlock(developer, id, { reason: 'x' }))).toBe('forbidden');
    // No reason: the gateway refuses it (ReasonBody requires one); the core checks it all the same.
    expect(await reasonOf(time.unlock(manager, id, unvalidated<TimeEntryReasonBody>({})))).toBe('validation_error');
    expect(events(stores)).toEqual(['time.logged', 'time.submitted', 'time.approved']);
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
    expect(unchanged.rows[0].row).toMatchObject({ action: 'updated', metadata: like({ changedFields: [] }) });
  });

  it('never emits time.deleted: there is no way to delete a time entry', async () => {
    const { time } = await setUp();
    expect(Object.keys(time).sort()).toEqual([
      'approve',
      'costSummary',
      'create',
      'get',
      'list',
      'reject',
      'submit',
      'sync',
      'timeSummary',
      'unlock',
      'update',
    ]);
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
    expect(got.integrationLinks).toEqual([like({ externalId: 'T-1', alignEntityType: 'time_entry' })]);
  });

  it('syncs once per externalSystem + externalId: a repeat answers the same entry and link, created false, writing nothing', async () => {
    const { stores, project, other, user, time } = await setUp();
    const body = {
      projectId: project.id,
      userId: user.id,
      externalSystem: 'toggl',
      externalId: '42',
      workDate: '2026-03-05T23:30:00-05:00',
      minutes: 15,
    };
    const first = await time.sync(testActor(), body);
    const again = await time.sync(testActor(), { ...body, minutes: 20 });
    expect(first.created).toBe(true);
    expect(first.resource).toMatchObject({ workDate: '2026-03-05', source: 'toggl', created: true });
    expect(again).toMatchObject({
      created: false,
      resource: { id: first.resource.id, integrationLinkId: first.resource.integrationLinkId, minutes: 15 },
    });
    expect(events(stores)).toEqual(['integration_link.created', 'time.logged']);
    expect(audits(stores)[0].metadata).toMatchObject({ via: 'sync', externalSystem: 'toggl', externalId: '42' });
    expect(await reasonOf(time.sync(testActor(), { ...body, projectId: other.id }))).toBe('conflict');
    expect(await reasonOf(time.sync(testActor(), { ...body, externalId: ' ' }))).toBe('validation_error');
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

  it('sums a time summary by status and by user (most minutes first), within a date range', async () => {
    const { stores, project, user, time } = await setUp();
    const bob = await stores.users.insert({
      organizationId: TEST_ORG,
      email: 'bob@example.test',
      name: 'Bob',
      role: 'developer',
    });
    const log = (userId: string, minutes: number, workDate = '2026-03-05', billable = true) =>
      time.create(testActor(), project.id, { userId, workDate, minutes, billable });
    const a = await log(user.id, 30);
    await log(user.id, 15, '2026-03-05', false);
    await log(bob.id, 60);
    await log(bob.id, 600, '2026-04-01');
    await time.submit(developer, a.resource.id as string);
    const summary = await time.timeSummary(testActor(), project.id, { to: '2026-03-31' });
    expect(summary).toEqual({
      projectId: project.id,
      releaseId: null,
      totalMinutes: 105,
      totalHours: '1.75',
      billableMinutes: 90,
      byStatus: { draft: 75, submitted: 30, approved: 0, rejected: 0, locked: 0, invoiced: 0 },
      byUser: [
        { userId: bob.id, totalMinutes: 60 },
        { userId: user.id, totalMinutes: 45 },
      ],
    });
    expect(await reasonOf(time.timeSummary(testActor(), project.id, { releaseId: 'x' }))).toBe('validation_error');
  });

  it("answers a cost summary in the organization's currency (USD when it has none)", async () => {
    const { stores, project, time } = await setUp();
    stores.timeEntries.costs.set(project.id, {
      plannedCost: '10.00',
      actualCost: '8.50',
      approvedCost: null,
      pendingCost: '8.50',
    });
    expect(await time.costSummary(testActor(), project.id)).toEqual({
      projectId: project.id,
      currency: 'USD',
      plannedCost: '10.00',
      actualCost: '8.50',
      approvedCost: null,
      pendingCost: '8.50',
    });
    stores.organizations.rows.push({ id: TEST_ORG, name: 'Acme', apiEnabled: true, currency: 'EUR', createdAt: new Date() });
    expect(await time.costSummary(testActor(), project.id)).toMatchObject({ currency: 'EUR' });
    expect(await reasonOf(time.costSummary(testActor({ organizationId: OTHER_ORG }), project.id))).toBe('not_found');
  });

  describe('no cross-tenant oracle: the project (or the time entry) first, then the references', () => {
    const RANDOM = '30000000-0000-4000-8000-000000000009';

    /** Another organization with a project, an entry and a release of it, and a user. */
    async function foreignWorld() {
      const world = await setUp();
      const { stores } = world;
      const foreignProject = await stores.projects.insert({
        organizationId: OTHER_ORG,
        clientId: OTHER_ORG,
        name: 'B',
        description: '',
      });
      const foreignUser = await stores.users.insert({
        organizationId: OTHER_ORG,
        email: 'b@example.test',
        name: 'B',
        role: 'developer',
      });
      const foreignEntryId = '30000000-0000-4000-8000-0000000000e1';
      const foreignReleaseId = '30000000-0000-4000-8000-0000000000a1';
      stores.timeEntries.workItems.push(
        { kind: 'entry', id: foreignEntryId, projectId: foreignProject.id },
        { kind: 'release', id: foreignReleaseId, projectId: foreignProject.id },
      );
      return { ...world, foreignProject, foreignUser, foreign: { entryId: foreignEntryId, releaseId: foreignReleaseId } };
    }

    it("answers 404 on another organization's project whatever the body names, on create and on sync", async () => {
      const { stores, time, user, foreignProject, foreignUser, foreign } = await foreignWorld();
      const base = { userId: user.id, workDate: '2026-03-05', minutes: 10 };
      const references: Record<string, string>[] = [
        {},
        { entryId: foreign.entryId },
        { entryId: RANDOM },
        { releaseId: foreign.releaseId },
        { releaseId: RANDOM },
        { userId: foreignUser.id },
        { userId: RANDOM },
      ];
      const notFound = { status: 404, reason: 'not_found', message: 'project not found', details: null };
      for (const refs of references) {
        const body = { ...base, ...refs };
        expect(await answerOf(time.create(testActor(), foreignProject.id, body)), JSON.stringify(refs)).toEqual(notFound);
        if ('releaseId' in refs) continue; // a sync names no release
        const synced = { ...body, projectId: foreignProject.id, externalSystem: 'toggl', externalId: '1' };
        expect(await answerOf(time.sync(testActor(), synced)), JSON.stringify(refs)).toEqual(notFound);
      }
      expect(stores.written).toHaveLength(0);
    });

    it("gives another organization's entry, release or user the same answer as a random id (create, sync, update)", async () => {
      const { time, project, user, foreignUser, foreign } = await foreignWorld();
      const base = { userId: user.id, workDate: '2026-03-05', minutes: 10 };
      const sync = { ...base, projectId: project.id, externalSystem: 'toggl', externalId: '1' };
      const cases = [
        { field: 'entryId', id: foreign.entryId, status: 400 },
        { field: 'releaseId', id: foreign.releaseId, status: 400 },
        { field: 'userId', id: foreignUser.id, status: 404 },
      ];
      for (const { field, id, status } of cases) {
        const theirs = await answerOf(time.create(testActor(), project.id, { ...base, [field]: id }));
        expect(theirs, field).toMatchObject({ status });
        expect(await answerOf(time.create(testActor(), project.id, { ...base, [field]: RANDOM })), field).toEqual(theirs);
        if (field === 'releaseId') continue; // a sync names no release
        const theirsSynced = await answerOf(time.sync(testActor(), { ...sync, [field]: id }));
        expect(theirsSynced, field).toMatchObject({ status });
        expect(await answerOf(time.sync(testActor(), { ...sync, [field]: RANDOM })), field).toEqual(theirsSynced);
      }
      const { resource } = await time.create(testActor(), project.id, base);
      const theirs = await answerOf(time.update(testActor(), resource.id as string, { releaseId: foreign.releaseId }));
      expect(theirs).toMatchObject({ status: 400, reason: 'validation_error' });
      expect(await answerOf(time.update(testActor(), resource.id as string, { releaseId: RANDOM }))).toEqual(theirs);
    });
  });
});
