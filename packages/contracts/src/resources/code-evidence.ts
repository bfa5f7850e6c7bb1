import { Type, type Static } from '@sinclair/typebox';
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

/** The code-hosting part of a release's evidence. */
export const CodeEvidence = Type.Object(
  {
    commits: Type.Array(CodeCommit),
    pullRequests: Type.Array(CodePullRequest),
    ciRuns: Type.Array(CodeCiRun),
  },
  { additionalProperties: false },
);
export type CodeEvidence = Static<typeof CodeEvidence>;
