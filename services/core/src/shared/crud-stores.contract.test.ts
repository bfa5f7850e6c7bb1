import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import type { Page, PageArgs } from '@cluster/platform';
import { migrations } from '../migrations/index.ts';
import { fakeWorld, postgresWorld, type CoreWorld } from './contract-world.ts';

/** The CRUD face of a plain store, under a parent (its list's key) in an organization. */
interface Crud {
  parent: string;
  insert(): Promise<{ id: string; createdAt: Date }>;
  find(id: string): Promise<object | undefined>;
  list(page: PageArgs): Promise<Page<{ id: string }>>;
  /** A change and the fields it must show; undefined when the store has no update. */
  update?: { values: Record<string, unknown>; run(id: string): Promise<object | undefined> };
  remove?(id: string): Promise<void>;
}

/** Each plain store of the core, over fresh parents of `w`. */
const STORES: Record<string, (w: CoreWorld) => Promise<Crud>> = {
  CommentStore: async (w) => {
    const entry = await w.entry(await w.project(await w.organization()));
    const s = w.stores.comments;
    return {
      parent: entry.id,
      insert: () => s.insert({ entryId: entry.id, projectId: entry.projectId, organizationId: entry.organizationId, body: 'hi' }),
      find: (id) => s.find(id),
      list: (p) => s.list(entry.id, p),
      update: { values: { body: 'changed' }, run: (id) => s.update(id, { body: 'changed' }) },
      remove: (id) => s.remove(id),
    };
  },
  AttachmentStore: async (w) => {
    const entry = await w.entry(await w.project(await w.organization()));
    const s = w.stores.attachments;
    return {
      parent: entry.id,
      insert: () =>
        s.insert({
          entryId: entry.id,
          projectId: entry.projectId,
          organizationId: entry.organizationId,
          fileName: 'a.txt',
          fileSize: '12',
          fileType: 'text/plain',
          objectPath: 'x/a.txt',
        }),
      find: (id) => s.find(id),
      list: (p) => s.list(entry.id, p),
      remove: (id) => s.remove(id),
    };
  },
  WikiStore: async (w) => {
    const project = await w.project(await w.organization());
    const s = w.stores.wiki;
    return {
      parent: project.id,
      insert: () => s.insert({ organizationId: project.organizationId, projectId: project.id, creatorId: null, title: 'Page' }),
      find: (id) => s.find(id),
      list: (p) => s.list(project.id, p),
      update: { values: { content: 'text' }, run: (id) => s.update(id, { content: 'text' }) },
      remove: (id) => s.remove(project.organizationId, id),
    };
  },
  ReleaseStore: async (w) => {
    const project = await w.project(await w.organization());
    const s = w.stores.releases;
    return {
      parent: project.id,
      insert: () => w.release(project),
      find: (id) => s.find(id),
      list: (p) => s.list(project.id, {}, p),
      update: { values: { status: 'released' }, run: (id) => s.update(id, { status: 'released' }) },
      remove: (id) => s.remove(id),
    };
  },
  AgreementStore: async (w) => {
    const project = await w.project(await w.organization());
    const s = w.stores.agreements;
    return {
      parent: project.id,
      insert: () => s.insert({ organizationId: project.organizationId, projectId: project.id, clientId: null, title: 'MSA' }),
      find: (id) => s.findById(id),
      list: (p) => s.list(project.id, p),
      update: { values: { status: 'signed' }, run: (id) => s.markSigned(id) },
    };
  },
  MemberStore: async (w) => {
    const org = await w.organization();
    const project = await w.project(org);
    const s = w.stores.members;
    return {
      parent: project.id,
      insert: async () => {
        const row = await s.insert({ projectId: project.id, userId: (await w.user(org)).id });
        if (!row) throw new Error('not inserted');
        return row;
      },
      find: (id) => s.find(project.id, id),
      list: (p) => s.list(project.id, p),
      update: { values: { roleOverride: 'admin' }, run: (id) => s.update(id, { roleOverride: 'admin' }) },
      remove: (id) => s.remove(id),
    };
  },
  SnapshotStore: async (w) => {
    const project = await w.project(await w.organization());
    const s = w.stores.snapshots;
    return {
      parent: project.id,
      insert: () =>
        s.insert({
          organizationId: project.organizationId,
          projectId: project.id,
          scopeType: 'project',
          scopeId: project.id,
          reportType: 'status',
          status: 'ready',
          summary: 's',
          narrativeSource: null,
        }),
      find: async (id) => (await s.list(project.id, { page: 1, pageSize: 100 })).data.find((r) => r.id === id),
      list: (p) => s.list(project.id, p),
    };
  },
};

const cases: Record<string, (w: CoreWorld) => Promise<void>> = {};
for (const [name, make] of Object.entries(STORES)) {
  cases[`${name}: insert answers the row (id, createdAt), find reads it back, a non-UUID or unknown id finds nothing`] = async (
    w,
  ) => {
    const crud = await make(w);
    const row = await crud.insert();
    expect(row.createdAt).toBeInstanceOf(Date);
    expect(await crud.find(row.id)).toEqual(row);
    expect(await crud.find(randomUUID())).toBeUndefined();
    expect(await crud.find('not-a-uuid')).toBeUndefined();
  };
  cases[`${name}: list is newest first (then id), with the true total on every page`] = async (w) => {
    const crud = await make(w);
    const made = [await crud.insert(), await crud.insert(), await crud.insert()];
    const [one, two] = [await crud.list({ page: 1, pageSize: 2 }), await crud.list({ page: 2, pageSize: 2 })];
    expect([one.total, two.total]).toEqual([3, 3]);
    expect([...one.data, ...two.data].map((r) => r.id)).toEqual(made.map((r) => r.id).reverse());
    expect((await crud.list({ page: 3, pageSize: 2 })).data).toEqual([]);
    expect((await (await make(w)).list({ page: 1, pageSize: 2 })).total).toBe(0);
  };
  cases[`${name}: update answers the changed row, as find then reads it; remove deletes`] = async (w) => {
    const crud = await make(w);
    const row = await crud.insert();
    if (crud.update) {
      const updated = await crud.update.run(row.id);
      expect(updated).toMatchObject({ id: row.id, ...crud.update.values });
      expect(await crud.find(row.id)).toEqual(updated);
    }
    if (crud.remove) {
      await crud.remove(row.id);
      expect(await crud.find(row.id)).toBeUndefined();
    }
  };
}

// The plain stores of the core held to Postgres with one table of cases.
describeStoreContract('plain core stores', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases,
  postgresOnly: {
    'MemberStore: insertMany refuses a user who is already a member': {
      reason: 'the fake throws a stand-in error for the unique (projectId, userId) key; only Postgres names the constraint',
      async test(w) {
        const org = await w.organization();
        const project = await w.project(org);
        const user = await w.user(org);
        await w.stores.members.insert({ projectId: project.id, userId: user.id });
        await expect(w.stores.members.insertMany([{ projectId: project.id, userId: user.id }])).rejects.toThrow(/unique/);
      },
    },
    'SnapshotStore: projectFigures counts a project’s entries by status, its releases and wiki pages': {
      reason: 'counted in SQL; the fake answers what a test puts in its `figures` map',
      async test(w) {
        const project = await w.project(await w.organization());
        await w.entry(project);
        await w.entry(project, { status: 'done' });
        await w.entry(project, { status: 'done' });
        await w.release(project, { status: 'released' });
        expect(await w.stores.snapshots.projectFigures(project.id)).toEqual({
          entriesByStatus: [
            { status: 'done', count: 2 },
            { status: 'open', count: 1 },
          ],
          releases: 1,
          released: 1,
          wikiPages: 0,
        });
      },
    },
  },
});
