import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import type { CodeEvidence, PlatformCheck } from '@cluster/contracts';
import { attestCode } from '../attestation/attest.ts';
import { buildPackage, canonicalDigest, checklists, packageDigest, packageSubject } from './build.ts';

const NO_CODE: CodeEvidence = { commits: [], pullRequests: [], ciRuns: [] };
/** The facts as the core gives them, organization-attested (no GitHub App). */
const org = (code: CodeEvidence) => attestCode(code);
const commit = (sha: string, entryIds: string[]) => ({
  provider: 'github',
  repository: 'o/r',
  sha,
  message: 'm',
  url: null,
  authorName: null,
  committedAt: null,
  entryIds,
});
const pr = (number: number, merged: boolean, headSha: string, entryIds: string[]) => ({
  provider: 'github',
  repository: 'o/r',
  number,
  title: 't',
  url: null,
  state: merged ? ('closed' as const) : ('open' as const),
  merged,
  mergedAt: merged ? '2026-01-01T00:00:00.000Z' : null,
  headSha,
  mergeCommitSha: merged ? `m${headSha}` : null,
  entryIds,
});
const run = (headSha: string, status: string, conclusion: string | null, repository = 'o/r') => ({
  provider: 'github',
  repository,
  kind: 'check_run' as const,
  externalId: `${headSha}-${conclusion}`,
  name: 'ci',
  headSha,
  status,
  conclusion,
  url: null,
  completedAt: null,
  entryIds: [],
});

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
    const list = checklists(
      [
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
      ],
      org({
        // e1: a commit. e2: a merged pull request (its merge commit counts) with green CI. e3: an open
        // pull request. e4: a merged one whose CI failed on another run. (A run in another repository counts for nothing.)
        commits: [commit('c1', ['e1'])],
        pullRequests: [pr(1, true, 'h1', ['e2']), pr(2, false, 'h2', ['e3']), pr(3, true, 'h3', ['e4'])],
        ciRuns: [
          run('h1', 'completed', 'success'),
          run('mh1', 'completed', 'skipped'),
          run('h1', 'completed', 'failure', 'o/other'),
          run('h2', 'completed', 'success'),
          run('h3', 'completed', 'success'),
          run('mh3', 'completed', 'failure'),
        ],
      }),
    );
    expect(list.map((k) => [k.id, k.passed, k.failingEntryIds])).toEqual([
      ['entries_done', false, ['e2']],
      ['bug_reports_complete', false, ['e3']],
      ['entries_approved', false, ['e4']],
      ['entries_have_commits', false, ['e3']],
      ['pull_requests_merged_green', false, ['e3', 'e4']],
    ]);
  });

  it('a merged pull request without any CI run, or with one still running, is not green', () => {
    const ids = (runs: ReturnType<typeof run>[]) =>
      checklists([entry('e1', {})], org({ commits: [], pullRequests: [pr(1, true, 'h1', ['e1'])], ciRuns: runs })).find(
        (k) => k.id === 'pull_requests_merged_green',
      )!.failingEntryIds;
    expect(ids([])).toEqual(['e1']);
    expect(ids([run('h1', 'in_progress', null)])).toEqual(['e1']);
    expect(ids([run('h1', 'completed', 'neutral')])).toEqual([]);
  });

  it('pass for a release without entries', () => {
    expect(checklists([], org(NO_CODE)).every((k) => k.passed)).toBe(true);
  });

  it('say on whose word they rest: the code checks on the organization’s unless GitHub confirmed every fact they read', () => {
    const code: CodeEvidence = {
      commits: [commit('c1', ['e1'])],
      pullRequests: [pr(1, true, 'h1', ['e1'])],
      ciRuns: [run('h1', 'completed', 'success')],
    };
    const attested = (checks: { commits?: PlatformCheck[]; pullRequests?: PlatformCheck[]; ciRuns?: PlatformCheck[] }) =>
      checklists([entry('e1', {})], attestCode(code, checks)).map((k) => [k.id, k.passed, k.attestedBy]);
    // Webhooks alone: the code checks pass on the organization's word; the entry checks rest on the platform's records.
    expect(attested({})).toEqual([
      ['entries_done', true, 'platform'],
      ['bug_reports_complete', true, 'platform'],
      ['entries_approved', true, 'platform'],
      ['entries_have_commits', true, 'organization'],
      ['pull_requests_merged_green', true, 'organization'],
    ]);
    // The pull request and the run confirmed, the commit not: merged-green rests on the platform alone.
    expect(attested({ pullRequests: ['confirmed'], ciRuns: ['confirmed'] }).slice(3)).toEqual([
      ['entries_have_commits', true, 'organization'],
      ['pull_requests_merged_green', true, 'platform'],
    ]);
    expect(attested({ commits: ['confirmed'], pullRequests: ['confirmed'], ciRuns: ['confirmed'] }).slice(3)).toEqual([
      ['entries_have_commits', true, 'platform'],
      ['pull_requests_merged_green', true, 'platform'],
    ]);
    // A run GitHub contradicts (a success it never ran) counts for nothing: the pull request is not green.
    expect(attested({ pullRequests: ['confirmed'], ciRuns: ['contradicted'] })[4]).toEqual([
      'pull_requests_merged_green',
      false,
      'organization',
    ]);
    // A contradicted commit gives its entry no commit; the merged pull request's merge commit still does.
    expect(attested({ commits: ['contradicted'], pullRequests: ['confirmed'] })[3]).toEqual([
      'entries_have_commits',
      true,
      'organization',
    ]);
    expect(attested({ commits: ['contradicted'], pullRequests: ['contradicted'] }).slice(3)).toEqual([
      ['entries_have_commits', false, 'organization'],
      ['pull_requests_merged_green', false, 'organization'],
    ]);
  });
});

describe('the package', () => {
  const subject = packageSubject(
    { release: { id: 'r1', name: 'R' }, entries: [entry('e1', {})], approvals: [], code: NO_CODE },
    'o1',
    org(NO_CODE),
  );

  it('is canonical JSON whose sha256 covers everything else, its place in the chain included', () => {
    const bytes = buildPackage(subject, {
      generatedAt: new Date('2026-01-02T03:04:05Z'),
      sequence: 2,
      previousSha256: 'a'.repeat(64),
    });
    const pkg = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    expect(canonicalize(pkg)).toBe(bytes.toString('utf8'));
    const { sha256, ...content } = pkg;
    expect(sha256).toBe(createHash('sha256').update(canonicalize(content)!).digest('hex'));
    expect(pkg).toMatchObject({
      schemaVersion: 2,
      generatedAt: '2026-01-02T03:04:05.000Z',
      organizationId: 'o1',
      codeHosting: NO_CODE,
      sequence: 2,
      previousSha256: 'a'.repeat(64),
    });
  });

  it('chains by the digest of the exact bytes of the previous package', () => {
    const first = buildPackage(subject, { generatedAt: new Date(0), sequence: 1, previousSha256: null });
    const second = buildPackage(subject, { generatedAt: new Date(1), sequence: 2, previousSha256: packageDigest(first) });
    expect(JSON.parse(first.toString('utf8'))).toMatchObject({ sequence: 1, previousSha256: null });
    expect(JSON.parse(second.toString('utf8'))).toMatchObject({
      previousSha256: createHash('sha256').update(first).digest('hex'),
    });
    // The facts' digest leaves out when and where in the chain: equal facts, equal digest.
    expect(canonicalDigest(subject)).toBe(
      canonicalDigest(
        packageSubject(
          { release: { id: 'r1', name: 'R' }, entries: [entry('e1', {})], approvals: [], code: NO_CODE },
          'o1',
          org(NO_CODE),
        ),
      ),
    );
  });
});
