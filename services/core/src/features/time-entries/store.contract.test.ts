import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld, type CoreWorld } from '../../shared/contract-world.ts';
import { formatWorkDate } from './duration.ts';
import type { TimeEntryRow } from './store.ts';

/** An organization with a project and a user, and a maker of their time entries. */
async function setting(w: CoreWorld) {
  const org = await w.organization();
  const project = await w.project(org);
  const user = await w.user(org);
  const add = (over: Record<string, unknown> = {}) =>
    w.stores.timeEntries.insert({
      organizationId: org,
      projectId: project.id,
      userId: user.id,
      workDate: '2024-03-10',
      minutes: 30,
      status: 'draft',
      source: 'api',
      ...over,
    });
  return { org, project, user, add };
}

const dates = (rows: TimeEntryRow[]) => rows.map((r) => formatWorkDate(r.workDate));
const ref = { provider: 'harvest', externalType: 'time_entry', externalId: 'h-1' };

// TimeEntryStore held to Postgres.
describeStoreContract('TimeEntryStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'insert answers the row with the columns’ defaults; find and findInOrganization read it back': async (w) => {
      const { org, add } = await setting(w);
      const row = await add();
      expect(row).toMatchObject({
        organizationId: org,
        minutes: 30,
        status: 'draft',
        billable: true,
        invoiced: false,
        entryId: null,
        releaseId: null,
        description: null,
        externalSystem: null,
        externalId: null,
        externalMetadata: null,
      });
      expect(formatWorkDate(row.workDate)).toBe('2024-03-10');
      expect(row.createdAt).toBeInstanceOf(Date);
      expect(await w.stores.timeEntries.find(row.id)).toEqual(row);
      expect(await w.stores.timeEntries.findInOrganization(org, row.id)).toEqual(row);
      expect(await w.stores.timeEntries.findInOrganization(await w.organization(), row.id)).toBeUndefined();
      expect(await w.stores.timeEntries.find('not-a-uuid')).toBeUndefined();
      expect(await w.stores.timeEntries.find(randomUUID())).toBeUndefined();
    },
    'update changes the columns given (jsonb too) and updatedAt': async (w) => {
      const { add } = await setting(w);
      const row = await add();
      const updated = await w.stores.timeEntries.update(row.id, { minutes: 45, externalMetadata: { tags: ['a'] } });
      expect(updated).toMatchObject({ id: row.id, minutes: 45, externalMetadata: { tags: ['a'] } });
      expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(row.updatedAt.getTime());
      expect(await w.stores.timeEntries.find(row.id)).toEqual(updated);
    },
    'list: the organization’s entries newest first, each filter exact, the workDate range inclusive': async (w) => {
      const { org, project, user, add } = await setting(w);
      const other = await w.project(org);
      const entry = await w.entry(project);
      const release = await w.release(project);
      await add({ workDate: '2024-03-01' });
      await add({ workDate: '2024-03-05', status: 'submitted', entryId: entry.id });
      await add({ workDate: '2024-03-09', releaseId: release.id });
      await add({ workDate: '2024-03-12', projectId: other.id });
      const stranger = await setting(w);
      await stranger.add();
      const list = (filter: object) => w.stores.timeEntries.list(org, filter, { page: 1, pageSize: 10 });
      expect(dates((await list({})).data)).toEqual(['2024-03-12', '2024-03-09', '2024-03-05', '2024-03-01']);
      expect(dates((await list({ projectId: null })).data)).toHaveLength(4);
      expect(dates((await list({ projectId: project.id })).data)).toEqual(['2024-03-09', '2024-03-05', '2024-03-01']);
      expect(dates((await list({ status: 'submitted' })).data)).toEqual(['2024-03-05']);
      expect(dates((await list({ userId: user.id, entryId: entry.id })).data)).toEqual(['2024-03-05']);
      expect(dates((await list({ releaseId: release.id })).data)).toEqual(['2024-03-09']);
      expect(dates((await list({ from: '2024-03-05', to: '2024-03-09' })).data)).toEqual(['2024-03-09', '2024-03-05']);
      const page2 = await w.stores.timeEntries.list(org, {}, { page: 2, pageSize: 3 });
      expect([page2.total, dates(page2.data)]).toEqual([4, ['2024-03-01']]);
    },
    'insertSynced creates one row per externalSystem + externalId of an organization; findSynced finds it': async (w) => {
      const { org, add } = await setting(w);
      const synced = { source: 'sync', externalSystem: 'harvest', externalId: 'h-1', externalMetadata: { a: 1 } };
      const first = await w.stores.timeEntries.insertSynced({ ...(await add()), id: undefined, ...synced });
      expect(first).toMatchObject(synced);
      const again = await w.stores.timeEntries.insertSynced({ ...first, id: randomUUID(), minutes: 60 });
      expect(again).toBeUndefined();
      expect(await w.stores.timeEntries.findSynced(org, 'harvest', 'h-1')).toEqual(first);
      expect(await w.stores.timeEntries.findSynced(org, 'harvest', 'h-2')).toBeUndefined();
      expect(await w.stores.timeEntries.findSynced(await w.organization(), 'harvest', 'h-1')).toBeUndefined();
    },
    'hasWorkItem: an entry or a release of that project, nothing else': async (w) => {
      const { org, project } = await setting(w);
      const other = await w.project(org);
      const entry = await w.entry(project);
      const release = await w.release(project);
      const has = w.stores.timeEntries.hasWorkItem;
      expect(await has('entry', entry.id, project.id)).toBe(true);
      expect(await has('release', release.id, project.id)).toBe(true);
      expect(await has('entry', entry.id, other.id)).toBe(false);
      expect(await has('release', entry.id, project.id)).toBe(false);
      expect(await has('entry', 'not-a-uuid', project.id)).toBe(false);
    },
    'minutesGroups sums minutes per user, status and billability, for a release and a workDate range': async (w) => {
      const { org, project, user, add } = await setting(w);
      const second = await w.user(org);
      const release = await w.release(project);
      await add({ minutes: 10 });
      await add({ minutes: 20 });
      await add({ minutes: 5, billable: false });
      await add({ minutes: 7, status: 'submitted', workDate: '2024-04-01', releaseId: release.id });
      await add({ minutes: 9, userId: second.id, releaseId: release.id });
      const groups = async (filter: { releaseId: string | null; from?: string; to?: string }) =>
        (await w.stores.timeEntries.minutesGroups(project.id, filter))
          .map((g) => `${g.userId === user.id ? 'u1' : 'u2'} ${g.status} ${g.billable ? 'billable' : 'unbilled'} ${g.minutes}`)
          .sort();
      expect(await groups({ releaseId: null })).toEqual([
        'u1 draft billable 30',
        'u1 draft unbilled 5',
        'u1 submitted billable 7',
        'u2 draft billable 9',
      ]);
      expect(await groups({ releaseId: release.id })).toEqual(['u1 submitted billable 7', 'u2 draft billable 9']);
      expect(await groups({ releaseId: null, from: '2024-03-31' })).toEqual(['u1 submitted billable 7']);
      expect(await groups({ releaseId: null, to: '2024-03-31' })).toEqual([
        'u1 draft billable 30',
        'u1 draft unbilled 5',
        'u2 draft billable 9',
      ]);
    },
    'externalRef links: insert once per ref, found by lock or find, and listed per entry oldest first': async (w) => {
      const { org, project, add } = await setting(w);
      const row = await add();
      const link = (externalId: string) =>
        w.stores.timeEntries.insertExternalLink({
          organizationId: org,
          projectId: project.id,
          ref: { ...ref, externalId },
          alignEntityType: 'time_entry',
          alignEntityId: row.id,
        });
      const first = await link('h-1');
      expect(first).toMatchObject({ organizationId: org, ...ref, alignEntityType: 'time_entry', alignEntityId: row.id });
      expect(await link('h-1')).toBeUndefined();
      const second = await link('h-2');
      expect(await w.stores.timeEntries.findExternalLink(org, ref)).toEqual(first);
      expect(await w.stores.timeEntries.findExternalLink(await w.organization(), ref)).toBeUndefined();
      expect((await w.stores.transaction((tx) => tx.timeEntries.lockExternalRef(org, ref)))?.id).toBe(first?.id);
      expect((await w.stores.timeEntries.linksOf(org, row.id)).map((l) => l.id)).toEqual([first?.id, second?.id]);
    },
  },
  postgresOnly: {
    'minutes must be 1 to 1440 and a status one of the known': {
      reason: 'CHECK constraints of the table; the fake stores what it is given (the service validates first)',
      async test(w) {
        const { add } = await setting(w);
        await expect(add({ minutes: 0 })).rejects.toThrow(/time_entries_minutes_range/);
        await expect(add({ status: 'paused' })).rejects.toThrow(/time_entries_status_known/);
      },
    },
    'costSums: the planned, actual, approved and pending sums of a project’s entries': {
      reason: 'summed in SQL from the entries’ cost columns; the fake answers what a test puts in its `costs` map',
      async test(w) {
        const { project } = await setting(w);
        expect(await w.stores.timeEntries.costSums(project.id)).toEqual({
          plannedCost: null,
          actualCost: null,
          approvedCost: null,
          pendingCost: null,
        });
        await w.entry(project, { lowCost: '10', highCost: '20', committedCost: '12.5', costApprovalStatus: 'approved' });
        await w.entry(project, { mediumCost: '7', committedCost: '3', costApprovalStatus: 'pending_admin' });
        await w.entry(project, { lowCost: 'n/a', committedCost: '100', costApprovalStatus: 'rejected' });
        expect(await w.stores.timeEntries.costSums(project.id)).toEqual({
          plannedCost: '22.00',
          actualCost: '15.50',
          approvedCost: '12.50',
          pendingCost: '3.00',
        });
      },
    },
  },
});
