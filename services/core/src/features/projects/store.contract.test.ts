import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld } from '../../shared/contract-world.ts';

const page = { page: 1, pageSize: 10 };

// ProjectStore held to Postgres.
describeStoreContract('ProjectStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'insert answers the row with the defaults (active, counter 0); find is scoped to the organization': async (w) => {
      const org = await w.organization();
      const project = await w.project(org, { customLinks: [{ label: 'a', url: 'https://a.example' }] });
      expect(project).toMatchObject({
        organizationId: org,
        status: 'active',
        entryCounter: 0,
        customLinks: [{ label: 'a', url: 'https://a.example' }],
      });
      expect(project.createdAt).toBeInstanceOf(Date);
      expect(await w.stores.projects.find(org, project.id)).toEqual(project);
      expect(await w.stores.projects.find(org, project.id, { lock: true })).toEqual(project);
      expect(await w.stores.projects.find(await w.organization(), project.id)).toBeUndefined();
      expect(await w.stores.projects.find(org, 'not-a-uuid')).toBeUndefined();
      expect(await w.stores.projects.findById(project.id)).toEqual(project);
      expect(await w.stores.projects.findById('not-a-uuid')).toBeUndefined();
      expect(await w.stores.projects.findById(randomUUID())).toBeUndefined();
    },
    'update changes the columns given and updatedAt; remove deletes': async (w) => {
      const project = await w.project(await w.organization());
      const updated = await w.stores.projects.update(project.id, { name: 'renamed', customLinks: [] });
      expect(updated).toMatchObject({ id: project.id, name: 'renamed', customLinks: [] });
      expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(project.updatedAt.getTime());
      await w.stores.projects.remove(project.id);
      expect(await w.stores.projects.findById(project.id)).toBeUndefined();
    },
    'list newest first, by id and status; listNames oldest first; idsIn keeps the organization’s ids': async (w) => {
      const org = await w.organization();
      const a = await w.project(org);
      const b = await w.project(org, { status: 'archived' });
      const c = await w.project(org);
      const stranger = await w.project(await w.organization());
      const ids = async (filter: object) => (await w.stores.projects.list(org, filter, page)).data.map((p) => p.id);
      expect(await ids({})).toEqual([c.id, b.id, a.id]);
      expect(await ids({ status: 'archived' })).toEqual([b.id]);
      expect(await ids({ id: a.id })).toEqual([a.id]);
      expect(await ids({ id: null })).toHaveLength(3);
      expect(await w.stores.projects.listNames(org)).toEqual([a, b, c].map(({ id, name }) => ({ id, name })));
      expect(await w.stores.projects.idsIn(org, [a.id, stranger.id, 'not-a-uuid', c.id])).toEqual(new Set([a.id, c.id]));
    },
  },
});
