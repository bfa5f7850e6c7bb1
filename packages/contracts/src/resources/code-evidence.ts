import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DateTime, Nullable, NullableString, StringEnum, Uuid } from './common.ts';

/**
 * Code-hosting evidence: what code-host webhooks (issue 12, `POST /hooks/github/:organizationId`)
 * recorded about a release's entries. Core owns and fills it; the evidence service reads it
 * over Connect (`CodeHostService.ListCodeEvidence`) and puts it in the evidence package as it is.
 * Every item names the entries it is linked to (`entryIds`), so a checklist can say which
 * entries fail it. Arrays are in a stable order (time, then id) so that the package is
 * deterministic.
 */

/** A commit whose message referenced an entry (`E-<number>`). */
export const CodeCommit = Type.Object(
  {
    provider: Type.String({ description: 'e.g. github' }),
    repository: Type.String({ description: 'owner/name' }),
    sha: Type.String(),
    message: Type.String(),
    url: NullableString,
    authorName: NullableString,
    committedAt: Nullable(DateTime),
    entryIds: Type.Array(Uuid),
  },
  { additionalProperties: false },
);
export type CodeCommit = Static<typeof CodeCommit>;

/** A pull request whose title or body referenced an entry; its latest known state. */
export const CodePullRequest = Type.Object(
  {
    provider: Type.String(),
    repository: Type.String(),
    number: Type.Integer({ minimum: 1 }),
    title: Type.String(),
    url: NullableString,
    state: StringEnum(['open', 'closed'] as const),
    merged: Type.Boolean(),
    mergedAt: Nullable(DateTime),
    headSha: NullableString,
    mergeCommitSha: NullableString,
    entryIds: Type.Array(Uuid),
  },
  { additionalProperties: false },
);
export type CodePullRequest = Static<typeof CodePullRequest>;

/** A CI run (check run or workflow run) on a linked commit or a linked pull request's head. */
export const CodeCiRun = Type.Object(
  {
    provider: Type.String(),
    repository: Type.String(),
    kind: StringEnum(['check_run', 'workflow_run'] as const),
    externalId: Type.String({ description: "the code host's id of the run" }),
    name: Type.String(),
    headSha: Type.String(),
    status: Type.String({ description: 'queued, in_progress or completed' }),
    conclusion: Nullable(Type.String({ description: 'success, failure, ... once completed' })),
    url: NullableString,
    completedAt: Nullable(DateTime),
    entryIds: Type.Array(Uuid),
  },
  { additionalProperties: false },
);
export type CodeCiRun = Static<typeof CodeCiRun>;

/** The three lists of the code-hosting part of a release's evidence, of these facts. */
const codeLists = <C extends TSchema, P extends TSchema, R extends TSchema>(commits: C, pullRequests: P, ciRuns: R) =>
  Type.Object(
    { commits: Type.Array(commits), pullRequests: Type.Array(pullRequests), ciRuns: Type.Array(ciRuns) },
    { additionalProperties: false },
  );

/** The code-hosting part of a release's evidence. */
export const CodeEvidence = codeLists(CodeCommit, CodePullRequest, CodeCiRun);
export type CodeEvidence = Static<typeof CodeEvidence>;

/**
 * Who vouches for a code-hosting fact of an evidence package (docs/evidence.md, "Who attests the
 * code-hosting facts"): `organization` when it rests on a webhook signed with the organization's own
 * secret (so the tenant could have written it), `platform` when the platform confirmed it with GitHub's
 * API itself, through the GitHub App whose credentials only the platform holds.
 */
export const ATTESTERS = ['organization', 'platform'] as const;
export const AttestedBy = StringEnum(ATTESTERS, {
  description:
    "organization: only a webhook signed with the organization's secret says it; platform: the platform confirmed it with GitHub",
});
export type AttestedBy = Static<typeof AttestedBy>;

/**
 * What the platform's own check against GitHub found: `confirmed` (GitHub says the same: attested by
 * the platform), `contradicted` (GitHub says otherwise, or has no such record: the fact counts for no
 * checklist), `unchecked` (no GitHub App configured, the repository not installed, or GitHub unreachable).
 */
export const PlatformCheck = StringEnum(['confirmed', 'contradicted', 'unchecked'] as const, {
  description: "the platform's check of the fact with GitHub's API: confirmed, contradicted or unchecked",
});
export type PlatformCheck = Static<typeof PlatformCheck>;

const attestation = { attestedBy: AttestedBy, platformCheck: PlatformCheck };

/** A commit of a release's evidence package, with who attests it. */
export const EvidenceCommit = Type.Object({ ...CodeCommit.properties, ...attestation }, { additionalProperties: false });
export type EvidenceCommit = Static<typeof EvidenceCommit>;

/** A pull request of a release's evidence package, with who attests it. */
export const EvidencePullRequest = Type.Object(
  { ...CodePullRequest.properties, ...attestation },
  { additionalProperties: false },
);
export type EvidencePullRequest = Static<typeof EvidencePullRequest>;

/** A CI run of a release's evidence package, with who attests it. */
export const EvidenceCiRun = Type.Object({ ...CodeCiRun.properties, ...attestation }, { additionalProperties: false });
export type EvidenceCiRun = Static<typeof EvidenceCiRun>;

/** The code-hosting part of a release's evidence package: CodeEvidence, each fact marked with who attests it. */
export const EvidenceCodeHosting = codeLists(EvidenceCommit, EvidencePullRequest, EvidenceCiRun);
export type EvidenceCodeHosting = Static<typeof EvidenceCodeHosting>;
