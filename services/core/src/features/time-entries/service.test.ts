import { describe, expect, it } from 'vitest';
import { answerOf, OTHER_ORG, testActor } from '../../shared/test-kit.ts';
import { setUp } from './test-world.ts';

describe('TimeEntryService: the rules together (fake stores)', () => {
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
