import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld } from '../../shared/contract-world.ts';

// ReleaseEvidenceStore held to Postgres (the fake reads the fake entries and the recorded audit rows).
describeStoreContract('ReleaseEvidenceStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'entriesOf: every entry of the release, by number': async (w) => {
      const project = await w.project(await w.organization());
      const release = await w.release(project);
      const other = await w.release(project);
      await w.entry(project, { releaseId: release.id });
      await w.entry(project, { releaseId: other.id });
      await w.entry(project);
      const last = await w.entry(project);
      await w.stores.entries.update(last.id, { releaseId: release.id });
      const rows = await w.stores.releaseEvidence.entriesOf(release.id);
      expect(rows.map((e) => e.entryNumber)).toEqual([1, 4]);
      expect(rows[1]).toMatchObject({ id: last.id, releaseId: release.id });
    },
    'approvalDecisions: audit records of those entries that carry approvals, oldest first': async (w) => {
      const org = await w.organization();
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      const at = (day: string) => `2024-03-${day}T12:00:00.000Z`;
      const decision = (
        entityId: string,
        day: string,
        metadata: Record<string, unknown> = { approvals: { client: 'approved' } },
      ) => w.audit(org, { id: randomUUID(), occurredAt: at(day), entityType: 'entry', action: 'updated', entityId, metadata });
      // Days whose names sort otherwise than their dates (Sat 9th, Sun 10th, Mon 11th, Tue 12th).
      await decision(b, '12');
      await decision(a, '11', { approvals: null });
      await decision(a, '10', { changedFields: ['title'] });
      await decision(a, '09');
      await decision(c, '08');
      await w.audit(org, { entityType: 'release', action: 'updated', entityId: a, metadata: { approvals: {} } });
      await w.audit(await w.organization(), { entityType: 'entry', action: 'updated', entityId: a, metadata: { approvals: {} } });
      const rows = await w.stores.releaseEvidence.approvalDecisions(org, [a, b]);
      expect(rows.map((r) => [r.entityId, r.createdAt.toISOString()])).toEqual([
        [a, at('09')],
        [a, at('11')],
        [b, at('12')],
      ]);
      expect(await w.stores.releaseEvidence.approvalDecisions(org, [])).toEqual([]);
    },
  },
});
