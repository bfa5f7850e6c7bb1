import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { entryWrite, fakeWorld, newEntry, postgresWorld } from '../../shared/contract-world.ts';

// EntryStore held to Postgres: the fake (createFakeEntryStore) must answer as the one statement does.
describeStoreContract('EntryStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'create numbers a project’s entries 1, 2, … and each project counts on its own': async (w) => {
      const org = await w.organization();
      const [a, b] = [await w.project(org), await w.project(org)];
      const numbers = [
        (await w.entry(a)).entryNumber,
        (await w.entry(a)).entryNumber,
        (await w.entry(b)).entryNumber,
        (await w.entry(a)).entryNumber,
      ];
      expect(numbers).toEqual([1, 2, 1, 3]);
      expect((await w.stores.projects.findById(a.id))?.entryCounter).toBe(3);
    },
    'create in another organization writes nothing: no row, no number used, no audit record': async (w) => {
      const org = await w.organization();
      const other = await w.organization();
      const project = await w.project(org);
      const entry = newEntry(project, { organizationId: other });
      expect(await w.stores.entries.create(entry, entryWrite(entry))).toBeUndefined();
      expect(await w.stores.entries.find(entry.id)).toBeUndefined();
      expect((await w.stores.auditEvents.list(other, {}, { page: 1, pageSize: 10 })).total).toBe(0);
      expect((await w.entry(project)).entryNumber).toBe(1);
    },
    'create answers every column, the ones left out as NULL, and commits its audit record': async (w) => {
      const org = await w.organization();
      const project = await w.project(org);
      const entry = newEntry(project);
      const row = await w.stores.entries.create(entry, entryWrite(entry));
      expect(row).toMatchObject({
        id: entry.id,
        projectId: project.id,
        organizationId: org,
        entryNumber: 1,
        title: entry.title,
        status: 'open',
        assignedToId: null,
        releaseId: null,
        typeMetadata: null,
        deploymentStage: null,
        statusChangedAt: null,
      });
      expect(row?.createdAt).toBeInstanceOf(Date);
      expect(await w.stores.entries.find(entry.id)).toEqual(row);
      const audit = await w.stores.auditEvents.list(org, {}, { page: 1, pageSize: 10 });
      expect(audit.data.map((a) => [a.entityType, a.action, a.entityId])).toEqual([['entry', 'created', entry.id]]);
    },
    'find: a non-UUID id finds nothing, nor does an unknown one': async (w) => {
      expect(await w.stores.entries.find('not-a-uuid')).toBeUndefined();
      expect(await w.stores.entries.find(randomUUID())).toBeUndefined();
    },
    'update changes the columns given and updatedAt; statusChangedNow stamps statusChangedAt': async (w) => {
      const project = await w.project(await w.organization());
      const entry = await w.entry(project);
      const plain = await w.stores.entries.update(entry.id, { title: 'renamed', typeMetadata: { a: [1] } });
      expect(plain).toMatchObject({ id: entry.id, title: 'renamed', typeMetadata: { a: [1] }, statusChangedAt: null });
      expect(plain.updatedAt.getTime()).toBeGreaterThanOrEqual(entry.updatedAt.getTime());
      const moved = await w.stores.entries.update(entry.id, { status: 'in_progress' }, { statusChangedNow: true });
      expect(moved.status).toBe('in_progress');
      expect(moved.statusChangedAt).toBeInstanceOf(Date);
      expect(await w.stores.entries.find(entry.id)).toEqual(moved);
    },
    'list: a project’s entries newest first, exact-match filters, true totals across pages': async (w) => {
      const org = await w.organization();
      const project = await w.project(org);
      const other = await w.project(org);
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await w.entry(project, { priority: i % 2 ? 'high' : 'low' }));
      await w.entry(other);
      const first = await w.stores.entries.list(project.id, {}, { page: 1, pageSize: 2 });
      const third = await w.stores.entries.list(project.id, {}, { page: 3, pageSize: 2 });
      expect(first.total).toBe(5);
      expect(third.total).toBe(5);
      expect([...first.data, ...third.data].map((e) => e.entryNumber)).toEqual([5, 4, 1]);
      const high = await w.stores.entries.list(project.id, { priority: 'high' }, { page: 1, pageSize: 10 });
      expect(high.data.map((e) => e.entryNumber)).toEqual([4, 2]);
      expect((await w.stores.entries.list(project.id, {}, { page: 9, pageSize: 2 })).data).toEqual([]);
    },
    'remove deletes the entry': async (w) => {
      const entry = await w.entry(await w.project(await w.organization()));
      await w.stores.entries.remove(entry.id);
      expect(await w.stores.entries.find(entry.id)).toBeUndefined();
    },
    'isOrganizationUser: a user of the organization, not of another, never a non-UUID': async (w) => {
      const org = await w.organization();
      const user = await w.user(org);
      expect(await w.stores.entries.isOrganizationUser(org, user.id)).toBe(true);
      expect(await w.stores.entries.isOrganizationUser(await w.organization(), user.id)).toBe(false);
      expect(await w.stores.entries.isOrganizationUser(org, 'not-a-uuid')).toBe(false);
    },
  },
});
