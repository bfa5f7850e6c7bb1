import { describe, expect, it } from 'vitest';
import type { EntryCreateBody } from '@cluster/contracts';
import { createFakeStores } from '../../fake-stores.ts';
import { answerOf, OTHER_ORG, reasonOf, TEST_ORG, testActor as actor, unvalidated, like } from '../../shared/test-kit.ts';
import { createEntryService } from './service.ts';

const USER = '10000000-0000-4000-8000-000000000001';
const OTHER_USER = '10000000-0000-4000-8000-000000000002';

async function setup() {
  const stores = createFakeStores();
  const entries = createEntryService(stores);
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
  stores.entries.users.push({ id: USER, organizationId: TEST_ORG }, { id: OTHER_USER, organizationId: OTHER_ORG });
  return { stores, entries, project };
}

describe('entry rules (fake stores)', () => {
  it('creates with the defaults (open, medium), numbers from the project counter, audits and emits entry.created only', async () => {
    const { stores, entries, project } = await setup();
    // projectId and bogus: keys the gateway refuses (an unknown property); the core must ignore them all the same.
    const invalid = unvalidated<EntryCreateBody>({
      type: 'bug_report',
      title: 'Broken',
      description: '',
      projectId: 'ignored',
      bogus: 1,
    });
    const first = await entries.create(actor(), project.id, invalid);
    const second = await entries.create(actor(), project.id, {
      type: 'feature_request',
      title: 'Two',
      description: '',
      status: 'in_progress',
      priority: 'high',
    });
    expect(first).toMatchObject({ status: 'open', priority: 'medium', entryNumber: 1, projectId: project.id, creatorId: 'u1' });
    expect(first).not.toHaveProperty('organizationId');
    expect(first).not.toHaveProperty('bogus');
    expect(second).toMatchObject({ status: 'in_progress', priority: 'high', entryNumber: 2 });
    const [write] = stores.written;
    expect(write.rows).toEqual([
      like({
        table: 'audit_events',
        row: like({
          action: 'created',
          entityType: 'entry',
          entityId: first.id,
          entityName: 'Broken',
          projectId: project.id,
        }),
      }),
    ]);
    expect(write.events).toEqual([
      like({
        eventName: 'entry.created',
        entityId: first.id,
        organizationId: TEST_ORG,
        actorUserId: 'u1',
        payload: { entryId: first.id, projectId: project.id, title: 'Broken', type: 'bug_report', status: 'open' },
      }),
    ]);
  });

  it('emits entry.assigned too when created with an assignee of the organization', async () => {
    const { stores, entries, project } = await setup();
    const e = await entries.create(actor(), project.id, { type: 'bug_report', title: 'A', description: '', assignedToId: USER });
    expect(stores.written[0].events.map((x) => [x.eventName, x.payload.assignedToId, x.payload.previousAssignedToId])).toEqual([
      ['entry.created', undefined, undefined],
      ['entry.assigned', USER, null],
    ]);
    expect(e.assignedToId).toBe(USER);
  });

  it('answers 400 naming each bad reference (a user of another organization, a release of another project) and writes nothing', async () => {
    const { stores, entries, project } = await setup();
    const otherProject = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
    const release = await stores.releases.insert({
      projectId: otherProject.id,
      organizationId: TEST_ORG,
      name: 'R',
      startDate: '2025-01-01',
      endDate: '2025-02-01',
    });
    const body = { type: 'bug_report', title: 'A', description: '', assignedToId: OTHER_USER, releaseId: release.id } as const;
    await expect(entries.create(actor(), project.id, body)).rejects.toMatchObject({
      reason: 'validation_error',
      details: {
        errors: [
          { path: '/assignedToId', message: 'must be the id of a user of this organization' },
          { path: '/releaseId', message: 'must be the id of a release of this project' },
        ],
      },
    });
    const badAssignee = { type: 'bug_report', title: 'A', description: '', assignedToId: 'not-a-uuid' } as const;
    expect(await reasonOf(entries.create(actor(), project.id, badAssignee))).toBe('validation_error');
    const own = await stores.releases.insert({
      projectId: project.id,
      organizationId: TEST_ORG,
      name: 'S',
      startDate: '2025-01-01',
      endDate: '2025-02-01',
    });
    const good = { type: 'bug_report', title: 'A', description: '', releaseId: own.id, assignedToId: null } as const;
    expect(await reasonOf(entries.create(actor(), project.id, good))).toBe('no error');
    expect(stores.written).toHaveLength(1);
    expect(stores.entries.rows).toHaveLength(1);
  });

  it('creates nowhere but in a visible project: 404 (bad id, another organization), 403 for a project key on another project', async () => {
    const { stores, entries, project } = await setup();
    const foreign = await stores.projects.insert({ organizationId: OTHER_ORG, clientId: OTHER_ORG, name: 'Site' });
    const sibling = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
    const body: EntryCreateBody = { type: 'bug_report', title: 'A', description: '' };
    expect(await reasonOf(entries.create(actor(), 'nope', body))).toBe('not_found');
    expect(await reasonOf(entries.create(actor(), foreign.id, body))).toBe('not_found');
    const key = actor({ scope: 'project', scopedProjectId: project.id });
    expect(await reasonOf(entries.create(key, sibling.id, body))).toBe('scope_violation');
    expect(await reasonOf(entries.create(key, foreign.id, body))).toBe('not_found');
    expect(await reasonOf(entries.create(key, project.id, body))).toBe('no error');
    expect(stores.written).toHaveLength(1);
    expect(foreign.entryCounter).toBe(0);
  });

  it('emits on update, in order: updated, status_changed, assigned, cost.approved; stamps statusChangedAt on a status move', async () => {
    const { stores, entries, project } = await setup();
    const e = await entries.create(actor(), project.id, {
      type: 'bug_report',
      title: 'A',
      description: '',
      costApprovalStatus: 'pending_admin',
      committedCost: '5',
    });
    await entries.update(actor(), e.id as string, { status: 'solved', assignedToId: USER, costApprovalStatus: 'approved' });
    const write = stores.written[1];
    expect(write.events.map((x) => x.eventName)).toEqual([
      'entry.updated',
      'entry.status_changed',
      'entry.assigned',
      'cost.approved',
    ]);
    const [updated, moved, assigned, cost] = write.events;
    expect(updated.payload.changedFields).toEqual(['status', 'assignedToId', 'statusChangedAt', 'costApprovalStatus']);
    expect(moved.payload).toMatchObject({ previousStatus: 'open', newStatus: 'solved', status: 'solved' });
    expect(assigned.payload).toMatchObject({ assignedToId: USER, previousAssignedToId: null });
    expect(cost.payload).toEqual({
      entryId: e.id,
      projectId: project.id,
      title: 'A',
      costApprovalStatus: 'approved',
      previousCostApprovalStatus: 'pending_admin',
      committedCost: '5',
    });
    expect(write.rows[0].row).toMatchObject({
      action: 'updated',
      metadata: like({ changedFields: updated.payload.changedFields }),
    });
    expect(stores.entries.rows[0].statusChangedAt).toBeInstanceOf(Date);
  });

  it('emits cost.rejected, nothing for other cost moves, and keeps a statusChangedAt the body sets', async () => {
    const { stores, entries, project } = await setup();
    const e = await entries.create(actor(), project.id, { type: 'bug_report', title: 'A', description: '' });
    const id = e.id as string;
    await entries.update(actor(), id, { costApprovalStatus: 'pending_admin' });
    await entries.update(actor(), id, { costApprovalStatus: 'rejected' });
    await entries.update(actor(), id, { status: 'solved', statusChangedAt: '2024-01-01T00:00:00.000Z' });
    expect(stores.written.slice(1).map((w) => w.events.map((x) => x.eventName))).toEqual([
      ['entry.updated'],
      ['entry.updated', 'cost.rejected'],
      ['entry.updated', 'entry.status_changed'],
    ]);
    expect(stores.entries.rows[0].statusChangedAt).toBe('2024-01-01T00:00:00.000Z');
  });

  it('an update that changes nothing (same status) is audited with no events and no statusChangedAt', async () => {
    const { stores, entries, project } = await setup();
    const e = await entries.create(actor(), project.id, { type: 'bug_report', title: 'A', description: '' });
    await entries.update(actor(), e.id as string, { status: 'open' });
    await entries.update(actor(), e.id as string, {});
    for (const w of stores.written.slice(1)) {
      expect(w.events).toEqual([]);
      expect(w.rows[0].row).toMatchObject({ action: 'updated', metadata: like({ changedFields: [] }) });
    }
    expect(stores.entries.rows[0].statusChangedAt).toBeNull();
  });

  it("hides another organization's entry and, from a project key, another project's (404 on read, update and delete)", async () => {
    const { stores, entries, project } = await setup();
    const sibling = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
    const foreignProject = await stores.projects.insert({ organizationId: OTHER_ORG, clientId: OTHER_ORG, name: 'Site' });
    const mine = await entries.create(actor(), project.id, { type: 'bug_report', title: 'Mine', description: '' });
    const theirs = await entries.create(actor(), sibling.id, { type: 'bug_report', title: 'Sibling', description: '' });
    const foreign = await entries.create(actor({ organizationId: OTHER_ORG }), foreignProject.id, {
      type: 'bug_report',
      title: 'Foreign',
      description: '',
    });
    const writes = stores.written.length;
    expect(await reasonOf(entries.get(actor(), foreign.id as string))).toBe('not_found');
    expect(await reasonOf(entries.update(actor(), foreign.id as string, { title: 'x' }))).toBe('not_found');
    expect(await reasonOf(entries.remove(actor(), foreign.id as string))).toBe('not_found');
    const key = actor({ scope: 'project', scopedProjectId: project.id });
    expect(await reasonOf(entries.get(key, theirs.id as string))).toBe('not_found');
    expect(await reasonOf(entries.get(key, mine.id as string))).toBe('no error');
    expect(await reasonOf(entries.list(key, sibling.id, {}, { page: 1, pageSize: 25 }))).toBe('scope_violation');
    expect(stores.written).toHaveLength(writes);
  });

  it('lists a project with exact-match filters, and deletes with an audit record and no event', async () => {
    const { stores, entries, project } = await setup();
    await entries.create(actor(), project.id, { type: 'bug_report', title: 'A', description: '', status: 'solved' });
    const b = await entries.create(actor(), project.id, { type: 'feature_request', title: 'B', description: '' });
    const page = await entries.list(actor(), project.id, { type: 'feature_request', status: 7 }, { page: 1, pageSize: 25 });
    expect(page.data.map((e) => e.title)).toEqual(['B']);
    expect(page.total).toBe(1);
    await entries.remove(actor(), b.id as string);
    const last = stores.written.at(-1);
    expect(last?.events).toEqual([]);
    expect(last?.rows[0].row).toMatchObject({ action: 'deleted', entityId: b.id, entityName: 'B' });
    expect(stores.entries.rows.map((r) => r.title)).toEqual(['A']);
  });

  describe('no cross-tenant oracle: the project first, then the references', () => {
    const RANDOM = '30000000-0000-4000-8000-000000000009';
    const base = { type: 'bug_report', title: 'A', description: '' } as const;

    async function foreignWorld() {
      const world = await setup();
      const foreignProject = await world.stores.projects.insert({ organizationId: OTHER_ORG, clientId: OTHER_ORG, name: 'B' });
      const foreignRelease = await world.stores.releases.insert({
        projectId: foreignProject.id,
        organizationId: OTHER_ORG,
        name: 'R',
        startDate: '2025-01-01',
        endDate: '2025-02-01',
      });
      return { ...world, foreignProject, foreignRelease };
    }

    it("answers 404 on another organization's project whatever the body names (its release, its user, a random id)", async () => {
      const { stores, entries, foreignProject, foreignRelease } = await foreignWorld();
      const bodies = [
        { ...base },
        { ...base, releaseId: foreignRelease.id },
        { ...base, releaseId: RANDOM },
        { ...base, assignedToId: OTHER_USER },
        { ...base, assignedToId: RANDOM },
        { ...base, assignedToId: USER, releaseId: RANDOM },
      ];
      for (const body of bodies) {
        expect(await answerOf(entries.create(actor(), foreignProject.id, body)), JSON.stringify(body)).toEqual({
          status: 404,
          reason: 'not_found',
          message: 'project not found',
          details: null,
        });
      }
      expect(stores.entries.rows).toHaveLength(0);
      expect(stores.written).toHaveLength(0);
    });

    it("gives another organization's release or user the same 400 as a random id, on create and on update", async () => {
      const { entries, project, foreignRelease } = await foreignWorld();
      for (const field of ['releaseId', 'assignedToId'] as const) {
        const foreignId = field === 'releaseId' ? foreignRelease.id : OTHER_USER;
        const foreign = await answerOf(entries.create(actor(), project.id, { ...base, [field]: foreignId }));
        expect(foreign).toMatchObject({ status: 400, reason: 'validation_error' });
        expect(await answerOf(entries.create(actor(), project.id, { ...base, [field]: RANDOM }))).toEqual(foreign);
      }
      const mine = await entries.create(actor(), project.id, base);
      for (const field of ['releaseId', 'assignedToId'] as const) {
        const foreignId = field === 'releaseId' ? foreignRelease.id : OTHER_USER;
        const foreign = await answerOf(entries.update(actor(), mine.id as string, { [field]: foreignId }));
        expect(foreign).toMatchObject({ status: 400, reason: 'validation_error' });
        expect(await answerOf(entries.update(actor(), mine.id as string, { [field]: RANDOM }))).toEqual(foreign);
      }
    });

    it("answers 404 on another organization's entry whatever the update names", async () => {
      const { stores, entries, foreignProject, foreignRelease } = await foreignWorld();
      const theirs = await entries.create(actor({ organizationId: OTHER_ORG }), foreignProject.id, base);
      const writes = stores.written.length;
      for (const body of [{ releaseId: foreignRelease.id }, { releaseId: RANDOM }, { assignedToId: RANDOM }]) {
        expect(await reasonOf(entries.update(actor(), theirs.id as string, body))).toBe('not_found');
      }
      expect(stores.written).toHaveLength(writes);
    });
  });
});
