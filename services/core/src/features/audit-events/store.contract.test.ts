import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld } from '../../shared/contract-world.ts';

const page = { page: 1, pageSize: 10 };

// AuditEventStore held to Postgres: the fake reads the audit rows of the writes recorded, as the table holds them.
describeStoreContract('AuditEventStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'list: an organization’s records newest first, narrowed to a project, filtered exactly': async (w) => {
      const org = await w.organization();
      const project = await w.project(org);
      const e = () => randomUUID();
      await w.audit(org, { entityType: 'entry', action: 'created', entityId: e(), projectId: project.id });
      await w.audit(org, { entityType: 'entry', action: 'updated', entityId: e(), projectId: project.id });
      await w.audit(org, { entityType: 'user', action: 'created', entityId: e() });
      await w.audit(await w.organization(), { entityType: 'user', action: 'created', entityId: e() });
      const list = async (filter: object, p = page) =>
        (await w.stores.auditEvents.list(org, filter, p)).data.map((r) => `${String(r.entityType)}.${String(r.action)}`);
      expect(await list({})).toEqual(['user.created', 'entry.updated', 'entry.created']);
      expect(await list({ projectId: project.id })).toEqual(['entry.updated', 'entry.created']);
      expect(await list({ entityType: 'entry', action: 'created' })).toEqual(['entry.created']);
      const second = await w.stores.auditEvents.list(org, {}, { page: 2, pageSize: 2 });
      expect([second.total, second.data.length]).toEqual([3, 1]);
      const [row] = (await w.stores.auditEvents.list(org, { entityType: 'user' }, page)).data;
      expect(row).toMatchObject({ organizationId: org, projectId: null, actorId: null, metadata: { actorType: 'admin_cli' } });
      expect(row.createdAt).toBeInstanceOf(Date);
    },
    'a record with its own id is written once; one with an earlier time sorts by it': async (w) => {
      const org = await w.organization();
      const id = randomUUID();
      const old = { id, occurredAt: '2020-01-01T00:00:00.000Z', entityType: 'user', action: 'forwarded', entityId: randomUUID() };
      await w.audit(org, old);
      await w.audit(org, { ...old, action: 'again' });
      await w.audit(org, { entityType: 'user', action: 'created', entityId: randomUUID() });
      const rows = (await w.stores.auditEvents.list(org, {}, page)).data;
      expect(rows.map((r) => r.action)).toEqual(['created', 'forwarded']);
      expect(rows[1]).toMatchObject({ id, createdAt: new Date(old.occurredAt) });
    },
  },
});
