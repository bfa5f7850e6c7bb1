import type { CodeCiRun, CodeCommit, CodePullRequest } from '@cluster/contracts';

// What leaves the core of the code-host records (CodeEvidence, in a release's facts): the same from
// the Postgres rows and the fakes' rows. Each is given with the release's entries it is linked to.

type When = Date | string | null | undefined;
const iso = (v: When) => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : v);
type Linked<T> = T & { entryIds: string[] };

export function presentCommit(c: Linked<Omit<CodeCommit, 'committedAt' | 'entryIds'> & { committedAt: When }>): CodeCommit {
  return {
    provider: c.provider,
    repository: c.repository,
    sha: c.sha,
    message: c.message,
    url: c.url,
    authorName: c.authorName,
    committedAt: iso(c.committedAt),
    entryIds: c.entryIds,
  };
}

export function presentPullRequest(
  p: Linked<Omit<CodePullRequest, 'mergedAt' | 'entryIds' | 'state'> & { state: string; mergedAt: When }>,
): CodePullRequest {
  return {
    provider: p.provider,
    repository: p.repository,
    number: p.number,
    title: p.title,
    url: p.url,
    state: p.state as CodePullRequest['state'],
    merged: p.merged,
    mergedAt: iso(p.mergedAt),
    headSha: p.headSha,
    mergeCommitSha: p.mergeCommitSha,
    entryIds: p.entryIds,
  };
}

export function presentCiRun(
  r: Linked<Omit<CodeCiRun, 'completedAt' | 'entryIds' | 'kind'> & { kind: string; completedAt: When }>,
): CodeCiRun {
  return {
    provider: r.provider,
    repository: r.repository,
    kind: r.kind as CodeCiRun['kind'],
    externalId: r.externalId,
    name: r.name,
    headSha: r.headSha,
    status: r.status,
    conclusion: r.conclusion,
    url: r.url,
    completedAt: iso(r.completedAt),
    entryIds: r.entryIds,
  };
}
