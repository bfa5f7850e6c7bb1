import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AttestedBy, EvidenceCodeHosting, ReleaseFacts } from '@cluster/contracts';

/**
 * Version of the package's shape (docs/evidence.md): 2 added the chain (`sequence`, `previousSha256`).
 * Who attests each code-hosting fact and checklist (`attestedBy`, `platformCheck`) was added within 2,
 * as v1 answers grow: additive fields (a package without them marks nothing: the organization's word).
 */
export const EVIDENCE_SCHEMA_VERSION = 2;

type Json = Record<string, unknown>;

/** One computed check: passed when no entry fails it. */
export interface Checklist {
  id: string;
  title: string;
  passed: boolean;
  failingEntryIds: string[];
  /** `platform` when it rests on no code-hosting fact that only the organization attests. */
  attestedBy: AttestedBy;
}

const DONE = new Set(['solved', 'deployed']);
const filled = (v: unknown) => typeof v === 'string' && v.trim() !== '';

/** CI conclusions that count as green (GitHub's: a skipped or neutral check does not block). */
const GREEN = new Set(['success', 'neutral', 'skipped']);

/** A fact GitHub contradicted (docs/evidence.md, "Who attests the code-hosting facts") counts for no check. */
const standing = (fact: { platformCheck: string }) => fact.platformCheck !== 'contradicted';

/** `platform` when every fact of `facts` is platform-attested (none, too), else `organization`. */
const restingOn = (...facts: { attestedBy: AttestedBy }[][]): AttestedBy =>
  facts.flat().every((f) => f.attestedBy === 'platform') ? 'platform' : 'organization';

/**
 * Whether a pull request is merged with green CI: merged, at least one CI run on its head or merge
 * commit, and every such run completed with a green conclusion; none of them contradicted by GitHub.
 */
function mergedGreen(pr: EvidenceCodeHosting['pullRequests'][number], code: EvidenceCodeHosting): boolean {
  const shas = new Set([pr.headSha, pr.mergeCommitSha].filter(Boolean));
  const runs = code.ciRuns.filter((r) => r.provider === pr.provider && r.repository === pr.repository && shas.has(r.headSha));
  return (
    standing(pr) &&
    pr.merged &&
    runs.length > 0 &&
    runs.every((r) => standing(r) && r.status === 'completed' && GREEN.has(r.conclusion ?? ''))
  );
}

/**
 * The quality checks of a release's entries (docs/evidence.md), from the entries and the code-host
 * evidence linked to them, each saying on whose word it rests: the entry checks on the platform's own
 * records, the code checks on the organization's unless every code-hosting fact they read is
 * platform-attested.
 */
export function checklists(entries: readonly Json[], code: EvidenceCodeHosting): Checklist[] {
  const check = (id: string, title: string, attestedBy: AttestedBy, fails: (e: Json) => boolean): Checklist => {
    const failingEntryIds = entries.filter(fails).map((e) => e.id as string);
    return { id, title, passed: failingEntryIds.length === 0, failingEntryIds, attestedBy };
  };
  const withCommit = new Set([
    ...code.commits.filter(standing).flatMap((c) => c.entryIds),
    ...code.pullRequests.filter((p) => standing(p) && p.merged && p.mergeCommitSha).flatMap((p) => p.entryIds),
  ]);
  const withUnfitPullRequest = new Set(code.pullRequests.filter((p) => !mergedGreen(p, code)).flatMap((p) => p.entryIds));
  return [
    check('entries_done', 'Every entry is solved or deployed', 'platform', (e) => !DONE.has(e.status as string)),
    check(
      'bug_reports_complete',
      'Every bug report carries steps to reproduce, expected and actual behaviour',
      'platform',
      (e) => e.type === 'bug_report' && !(filled(e.stepsToReproduce) && filled(e.expectedBehavior) && filled(e.actualBehavior)),
    ),
    check('entries_approved', 'Every entry is approved', 'platform', (e) => e.approvalStatus !== 'approved'),
    check(
      'entries_have_commits',
      'Every entry has a linked commit',
      restingOn(code.commits, code.pullRequests),
      (e) => !withCommit.has(e.id as string),
    ),
    check(
      'pull_requests_merged_green',
      'Every linked pull request is merged with green CI',
      restingOn(code.pullRequests, code.ciRuns),
      (e) => withUnfitPullRequest.has(e.id as string),
    ),
  ];
}

const countBy = (entries: readonly Json[], field: string) =>
  entries.reduce<Record<string, number>>((acc, e) => {
    const k = String(e[field]);
    acc[k] = (acc[k] ?? 0) + 1;
    return acc;
  }, {});

/** RFC 8785 canonical JSON (JCS) of a value, as UTF-8 bytes. */
export function canonicalBytes(value: unknown): Buffer {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('not serialisable as JSON');
  return Buffer.from(text, 'utf8');
}

/** What a package says about its release, without when it was built or where it sits in the chain. */
export type PackageSubject = ReturnType<typeof packageSubject>;

/** Where a package sits in its release's chain: its number, and the digest of the package before it. */
export interface ChainLink {
  /** 1 for a release's first package, then one more for each. */
  sequence: number;
  /** packageDigest of the release's previous package; null for the first. */
  previousSha256: string | null;
}

/** Hex SHA-256 of a value's canonical form: the package's `sha256` field, and the digest of its facts. */
export function canonicalDigest(value: unknown): string {
  return createHash('sha256').update(canonicalBytes(value)).digest('hex');
}

/** Hex SHA-256 of a package's exact bytes: what the next package of its release names as `previousSha256`. */
export function packageDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The facts of a package: the release, an entry summary, the approval chain, the checklists and
 * the code-hosting evidence (`code`: the core's, each fact marked with who attests it), with
 * `schemaVersion` and `organizationId`. Two packages whose subjects are equal say the same thing (the
 * evidence service issues a new one only when they differ: a fact the platform confirms later is a change).
 */
export function packageSubject(facts: ReleaseFacts, organizationId: string, code: EvidenceCodeHosting) {
  const numberOf = new Map(facts.entries.map((e) => [e.id as string, e.entryNumber]));
  const entries = facts.entries.map((e) => ({
    id: e.id,
    entryNumber: e.entryNumber,
    type: e.type,
    title: e.title,
    status: e.status,
    priority: e.priority,
    approvalStatus: e.approvalStatus ?? null,
    costApprovalStatus: e.costApprovalStatus ?? null,
    deploymentStage: e.deploymentStage ?? null,
  }));
  return {
    schemaVersion: EVIDENCE_SCHEMA_VERSION,
    organizationId,
    release: facts.release,
    entrySummary: {
      entries,
      total: entries.length,
      countsByStatus: countBy(entries, 'status'),
      countsByType: countBy(entries, 'type'),
    },
    approvalChain: facts.approvals.map((a) => ({
      entryId: a.entryId,
      entryNumber: numberOf.get(a.entryId) ?? null,
      action: `${a.field}_changed`,
      field: a.field,
      from: a.from,
      to: a.to,
      actorId: a.actorId,
      apiKeyId: a.apiKeyId,
      auditEventId: a.auditEventId,
      at: a.at,
    })),
    checklists: checklists(facts.entries, code),
    codeHosting: code,
  };
}

/**
 * A release's evidence package as canonical JSON bytes: its subject, `generatedAt`, its place in
 * the chain (`sequence`, `previousSha256`), and `sha256`: the hex SHA-256 of the canonical form of
 * everything else. Canonical (RFC 8785), so the bytes are a function of the content; the
 * signatures cover these exact bytes, and a verifier accepts no other serialisation.
 */
export function buildPackage(subject: PackageSubject, opts: ChainLink & { generatedAt: Date }): Buffer {
  const content = {
    ...subject,
    generatedAt: opts.generatedAt.toISOString(),
    sequence: opts.sequence,
    previousSha256: opts.previousSha256,
  };
  return canonicalBytes({ ...content, sha256: canonicalDigest(content) });
}

/** What a head statement says it is (its `statement` field): no package has the field, so neither passes for the other. */
export const HEAD_STATEMENT = 'release-evidence-head';

/**
 * A release's sequence head (docs/evidence.md, "The head"): canonical JSON naming the release's
 * newest package by its number and the SHA-256 of its exact bytes, and when the statement was made.
 * Signed by the platform with every answer, so an auditor given packages 1 to n and a head issued
 * later sees whether n is the newest, offline.
 */
export function buildHead(head: {
  organizationId: string;
  releaseId: string;
  sequence: number;
  packageSha256: string;
  issuedAt: Date;
}): Buffer {
  return canonicalBytes({ statement: HEAD_STATEMENT, ...head, issuedAt: head.issuedAt.toISOString() });
}
