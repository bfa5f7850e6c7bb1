import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { OTHER_ORG, reasonOf, TEST_ORG, testActor as actor } from '../../shared/test-kit.ts';
import { createReleaseService } from '../releases/service.ts';
import { createReleaseEvidenceService } from './service.ts';

async function setup() {
  const stores = createFakeStores();
  const project = await stores.projects.insert({ organizationId: TEST_ORG, clientId: TEST_ORG, name: 'Site' });
  const release = await createReleaseService(stores).create(actor(), project.id, {
    name: 'R',
    startDate: '2026-01-01',
    endDate: '2026-02-01',
  });
  const entry = (id: string, n: number, releaseId: string | null) =>
    ({ id, entryNumber: n, releaseId, organizationId: TEST_ORG, projectId: project.id, title: id }) as never;
  stores.releaseEvidence.data.entries.push(
    entry('e2', 2, release.id as string),
    entry('e1', 1, release.id as string),
    entry('x', 3, null),
  );
  const audit = (id: string, entityId: string, at: string, metadata: Record<string, unknown>, organizationId = TEST_ORG) =>
    ({
      id,
      organizationId,
      projectId: project.id,
      entityType: 'entry',
      action: 'updated',
      entityId,
      actorId: 'u1',
      createdAt: at,
      metadata,
    }) as never;
  stores.releaseEvidence.data.audit.push(
    audit('a2', 'e1', '2026-01-03T00:00:00.000Z', {
      apiKeyId: 'k1',
      approvals: { approvalStatus: { from: 'pending', to: 'approved' } },
    }),
    audit('a1', 'e2', '2026-01-02T00:00:00.000Z', {
      apiKeyId: 'k1',
      approvals: { costApprovalStatus: { from: null, to: 'approved' } },
    }),
    audit('a3', 'e1', '2026-01-04T00:00:00.000Z', { changedFields: ['title'] }),
    audit('a4', 'e1', '2026-01-05T00:00:00.000Z', { approvals: { approvalStatus: { from: 'x', to: 'y' } } }, OTHER_ORG),
  );
  return { stores, release, evidence: createReleaseEvidenceService(stores) };
}

describe('release evidence facts (fake stores)', () => {
  it('gives the release, its entries by number, and its entries approval decisions oldest first', async () => {
    const { release, evidence } = await setup();
    const facts = await evidence.facts(actor(), release.id as string);
    expect(facts.release).toMatchObject({ id: release.id, name: 'R' });
    expect(facts.entries.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(facts.approvals).toEqual([
      {
        entryId: 'e2',
        field: 'costApprovalStatus',
        from: null,
        to: 'approved',
        actorId: 'u1',
        apiKeyId: 'k1',
        auditEventId: 'a1',
        at: '2026-01-02T00:00:00.000Z',
      },
      {
        entryId: 'e1',
        field: 'approvalStatus',
        from: 'pending',
        to: 'approved',
        actorId: 'u1',
        apiKeyId: 'k1',
        auditEventId: 'a2',
        at: '2026-01-03T00:00:00.000Z',
      },
    ]);
  });

  it('hides another organization’s release (404)', async () => {
    const { release, evidence } = await setup();
    expect(await reasonOf(evidence.facts(actor({ organizationId: OTHER_ORG }), release.id as string))).toBe('not_found');
  });
});
