import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { buildPackage, checklists } from './build.ts';

const entry = (id: string, fields: Record<string, unknown>) => ({
  id,
  entryNumber: Number(id.slice(1)),
  type: 'feature_request',
  title: id,
  status: 'solved',
  priority: 'medium',
  approvalStatus: 'approved',
  costApprovalStatus: null,
  deploymentStage: null,
  ...fields,
});

describe('evidence checklists', () => {
  it('fail for exactly the entries that break them', () => {
    const list = checklists([
      entry('e1', {}),
      entry('e2', { status: 'open' }),
      entry('e3', { type: 'bug_report', stepsToReproduce: 'x', expectedBehavior: 'y', actualBehavior: ' ' }),
      entry('e4', {
        type: 'bug_report',
        stepsToReproduce: 'x',
        expectedBehavior: 'y',
        actualBehavior: 'z',
        approvalStatus: 'pending',
      }),
    ]);
    expect(list.map((k) => [k.id, k.passed, k.failingEntryIds])).toEqual([
      ['entries_done', false, ['e2']],
      ['bug_reports_complete', false, ['e3']],
      ['entries_approved', false, ['e4']],
    ]);
  });

  it('pass for a release without entries', () => {
    expect(checklists([]).every((k) => k.passed)).toBe(true);
  });
});

describe('the package', () => {
  it('is canonical JSON whose sha256 covers everything else', () => {
    const bytes = buildPackage(
      { release: { id: 'r1', name: 'R' }, entries: [entry('e1', {})], approvals: [] },
      { organizationId: 'o1', generatedAt: new Date('2026-01-02T03:04:05Z') },
    );
    const pkg = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    expect(canonicalize(pkg)).toBe(bytes.toString('utf8'));
    const { sha256, ...content } = pkg;
    expect(sha256).toBe(createHash('sha256').update(canonicalize(content)!).digest('hex'));
    expect(pkg).toMatchObject({ schemaVersion: 1, generatedAt: '2026-01-02T03:04:05.000Z', organizationId: 'o1' });
  });
});
