import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld, type CoreWorld } from '../../shared/contract-world.ts';

const page = { page: 1, pageSize: 10 };

/** A link of the organization to `alignEntityId` through the ref `provider/externalId`. */
function linker(w: CoreWorld, org: string) {
  return (externalId: string, alignEntityId: string, projectId: string | null = null, provider = 'github') =>
    w.stores.integrationLinks.insertExternalLink({
      organizationId: org,
      projectId,
      ref: { provider, externalType: 'issue', externalId },
      alignEntityType: projectId ? 'entry' : 'user',
      alignEntityId,
    });
}

// IntegrationLinkStore held to Postgres.
describeStoreContract('IntegrationLinkStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'insertExternalLink writes one link per ref of an organization; find reads it (never a non-UUID)': async (w) => {
      const org = await w.organization();
      const link = linker(w, org);
      const target = randomUUID();
      const row = await link('1', target);
      expect(row).toMatchObject({
        organizationId: org,
        projectId: null,
        provider: 'github',
        externalId: '1',
        alignEntityId: target,
      });
      expect(row?.createdAt).toBeInstanceOf(Date);
      expect(await link('1', randomUUID())).toBeUndefined();
      expect(await linker(w, await w.organization())('1', target)).toBeDefined();
      expect(await w.stores.integrationLinks.find(row?.id ?? '')).toEqual(row);
      expect(await w.stores.integrationLinks.find('not-a-uuid')).toBeUndefined();
    },
    'list: newest first, narrowed to a project, filtered exactly': async (w) => {
      const org = await w.organization();
      const project = await w.project(org);
      const link = linker(w, org);
      const entry = randomUUID();
      await link('1', randomUUID());
      await link('2', entry, project.id);
      await link('3', randomUUID(), project.id, 'jira');
      await linker(w, await w.organization())('4', randomUUID());
      const ids = async (filter: object) =>
        (await w.stores.integrationLinks.list(org, filter, page)).data.map((l) => l.externalId);
      expect(await ids({})).toEqual(['3', '2', '1']);
      expect(await ids({ projectId: project.id })).toEqual(['3', '2']);
      expect(await ids({ provider: 'jira' })).toEqual(['3']);
      expect(await ids({ alignEntityType: 'entry', alignEntityId: entry })).toEqual(['2']);
    },
    'update changes the columns given and updatedAt; remove deletes': async (w) => {
      const org = await w.organization();
      const row = await linker(w, org)('1', randomUUID());
      if (!row) throw new Error('no link');
      const updated = await w.stores.integrationLinks.update(row.id, { externalId: '1b' });
      expect(updated).toMatchObject({ id: row.id, externalId: '1b' });
      expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(row.updatedAt.getTime());
      await w.stores.integrationLinks.remove(row.id);
      expect(await w.stores.integrationLinks.find(row.id)).toBeUndefined();
    },
    'findAlignTarget: the project of a record of the organization (null for a user), else undefined': async (w) => {
      const org = await w.organization();
      const project = await w.project(org);
      const entry = await w.entry(project);
      const user = await w.user(org);
      const find = w.stores.integrationLinks.findAlignTarget;
      expect(await find(org, 'project', project.id)).toEqual({ projectId: project.id });
      expect(await find(org, 'entry', entry.id)).toEqual({ projectId: project.id });
      expect(await find(org, 'user', user.id)).toEqual({ projectId: null });
      expect(await find(org, 'release', entry.id)).toBeUndefined();
      expect(await find(await w.organization(), 'entry', entry.id)).toBeUndefined();
      expect(await find(org, 'entry', 'not-a-uuid')).toBeUndefined();
    },
  },
});
