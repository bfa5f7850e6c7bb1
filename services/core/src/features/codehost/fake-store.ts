import { randomUUID } from 'node:crypto';
import type { CodeEvidence } from '@cluster/contracts';
import type { ExternalLinkRow } from '../../shared/external-ref.ts';
import type { EntryRow } from '../entries/store.ts';
import type { CiRunFact, CommitFact, PullRequestFact } from './github.ts';
import { presentCiRun, presentCommit, presentPullRequest } from './presenter.ts';
import type { CiRunRow, CodeHostStore, CodeRepo, EntryRef, PullRequestRow } from './store.ts';

type Row<T> = T & CodeRepo & { id: string };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Oldest first, times missing last (the real store's ASC NULLS LAST). */
const byTime = (a: string | null, b: string | null) =>
  a === null || b === null ? Number(a === null) - Number(b === null) : Date.parse(a) - Date.parse(b);

/**
 * An in-memory CodeHostStore for unit tests of the rules. It reads the fake integration links and
 * entries (`links`, `entries`) as the real one reads their tables.
 */
export function createFakeCodeHostStore(deps: { links: ExternalLinkRow[]; entries: () => EntryRow[] }) {
  const secrets = new Map<string, string>();
  // Remembered deliveries by id, with the key of their body's digest and when they were received.
  const deliveries = new Map<string, { digest: string; receivedAt: number }>();
  const digests = new Set<string>();
  const commits: Row<CommitFact>[] = [];
  const pullRequests: Row<PullRequestFact>[] = [];
  const runs: Row<CiRunFact>[] = [];
  const commitEntries: { commitId: string; entryId: string }[] = [];
  const pullRequestEntries: { pullRequestId: string; entryId: string }[] = [];
  const attributions = new Map<string, string | null>();

  const ref = (e: EntryRow): EntryRef => ({ id: e.id, entryNumber: Number(e.entryNumber), projectId: e.projectId });
  const refsOf = (ids: Iterable<string>) => {
    const wanted = new Set(ids);
    return deps
      .entries()
      .filter((e) => wanted.has(e.id))
      .map(ref)
      .sort((a, b) => a.entryNumber - b.entryNumber);
  };
  const sameRepo = (a: CodeRepo, b: CodeRepo) =>
    a.organizationId === b.organizationId &&
    a.provider === b.provider &&
    a.repository.toLowerCase() === b.repository.toLowerCase();
  const link = <K extends string>(rows: Record<K | 'entryId', string>[], key: K, id: string, entryIds: readonly string[]) =>
    entryIds.filter((entryId) => {
      if (rows.some((r) => r[key] === id && r.entryId === entryId)) return false;
      rows.push({ [key]: id, entryId } as Record<K | 'entryId', string>);
      return true;
    });
  /** (repo, sha, entryId) of every link: commits, and pull requests' head and merge commits. */
  const linkedShas = (organizationId: string) => [
    ...commitEntries.flatMap(({ commitId, entryId }) => {
      const c = commits.find((x) => x.id === commitId && x.organizationId === organizationId);
      return c ? [{ repo: c, sha: c.sha, entryId }] : [];
    }),
    ...pullRequestEntries.flatMap(({ pullRequestId, entryId }) => {
      const p = pullRequests.find((x) => x.id === pullRequestId && x.organizationId === organizationId);
      return p ? [p.headSha, p.mergeCommitSha].filter((s): s is string => !!s).map((sha) => ({ repo: p, sha, entryId })) : [];
    }),
  ];

  const store: CodeHostStore & { secrets: typeof secrets; commits: typeof commits } = {
    secrets,
    commits,
    async sealedSecret(organizationId, provider) {
      return secrets.get(`${organizationId}:${provider}`);
    },
    async saveSecret(organizationId, provider, sealed) {
      const key = `${organizationId}:${provider}`;
      const action = secrets.has(key) ? 'rotated' : 'created';
      secrets.set(key, sealed);
      return action;
    },
    async pruneDeliveries(before) {
      let pruned = 0;
      for (const [key, d] of deliveries) {
        if (d.receivedAt >= before.getTime()) continue;
        deliveries.delete(key);
        digests.delete(d.digest);
        pruned++;
      }
      return pruned;
    },
    async claimDelivery({ organizationId, provider, deliveryId, bodyDigest }) {
      const key = `${organizationId}:${provider}:${deliveryId}`;
      const digest = `${organizationId}:${provider}:${bodyDigest}`;
      if (deliveries.has(key) || digests.has(digest)) return false;
      deliveries.set(key, { digest, receivedAt: Date.now() });
      digests.add(digest);
      return true;
    },
    async projectOfRepository(organizationId, provider, repository) {
      const l = deps.links.find(
        (x) =>
          x.organizationId === organizationId &&
          x.provider === provider &&
          x.externalType === 'repository' &&
          x.alignEntityType === 'project' &&
          x.externalId.toLowerCase() === repository.toLowerCase(),
      );
      return l?.alignEntityId ?? null;
    },
    async lockRepository() {},
    async entriesByNumber(projectId, numbers) {
      return deps
        .entries()
        .filter((e) => e.projectId === projectId && numbers.includes(Number(e.entryNumber)))
        .map(ref)
        .sort((a, b) => a.entryNumber - b.entryNumber);
    },
    async saveCommit(repo, commit) {
      const found = commits.find((c) => sameRepo(c, repo) && c.sha === commit.sha);
      if (found) return found.id;
      const row = { id: randomUUID(), ...repo, ...commit };
      commits.push(row);
      return row.id;
    },
    async linkCommit(commitId, entryIds) {
      return link(commitEntries, 'commitId', commitId, entryIds);
    },
    async findPullRequest(repo, number) {
      const p = pullRequests.find((x) => sameRepo(x, repo) && x.number === number);
      return (
        p &&
        ({
          id: p.id,
          state: p.state,
          merged: p.merged,
          mergedAt: p.mergedAt,
          sourceUpdatedAt: p.updatedAt,
        } satisfies PullRequestRow)
      );
    },
    async savePullRequest(repo, pr) {
      const found = pullRequests.find((x) => sameRepo(x, repo) && x.number === pr.number);
      if (found) return Object.assign(found, pr, { projectId: repo.projectId }).id;
      const row = { id: randomUUID(), ...repo, ...pr };
      pullRequests.push(row);
      return row.id;
    },
    async linkPullRequest(pullRequestId, entryIds) {
      return link(pullRequestEntries, 'pullRequestId', pullRequestId, entryIds);
    },
    async pullRequestEntries(pullRequestId) {
      return refsOf(pullRequestEntries.filter((x) => x.pullRequestId === pullRequestId).map((x) => x.entryId));
    },
    async findCiRun(repo, kind, externalId) {
      const r = runs.find(
        (x) =>
          x.organizationId === repo.organizationId &&
          x.provider === repo.provider &&
          x.kind === kind &&
          x.externalId === externalId,
      );
      return r && ({ id: r.id, status: r.status, attempt: r.attempt, sourceUpdatedAt: r.updatedAt } satisfies CiRunRow);
    },
    async saveCiRun(repo, run) {
      const found = runs.find(
        (x) => x.organizationId === repo.organizationId && x.kind === run.kind && x.externalId === run.externalId,
      );
      if (found) return Object.assign(found, run, repo).id;
      const row = { id: randomUUID(), ...repo, ...run };
      runs.push(row);
      return row.id;
    },
    async attribute(ciRunId, entryIds, conclusion) {
      return entryIds.filter((entryId) => {
        const key = `${ciRunId}:${entryId}`;
        if (attributions.has(key) && attributions.get(key) === conclusion) return false;
        attributions.set(key, conclusion);
        return true;
      });
    },
    async entriesOfSha(organizationId, provider, repository, sha) {
      const repo = { organizationId, provider, repository, projectId: '' };
      return refsOf(
        linkedShas(organizationId)
          .filter((l) => sameRepo(l.repo, repo) && l.sha === sha)
          .map((l) => l.entryId),
      );
    },
    async evidenceOf(organizationId, entryIds): Promise<CodeEvidence> {
      const wanted = (ids: string[]) => [...new Set(ids.filter((id) => entryIds.includes(id)))].sort();
      const linked = linkedShas(organizationId);
      return {
        commits: [...commits]
          .sort((a, b) => byTime(a.committedAt, b.committedAt) || byText(a.repository, b.repository) || byText(a.sha, b.sha))
          .filter((c) => c.organizationId === organizationId)
          .map((c) => ({ c, ids: wanted(commitEntries.filter((x) => x.commitId === c.id).map((x) => x.entryId)) }))
          .filter(({ ids }) => ids.length > 0)
          .map(({ c, ids }) => presentCommit({ ...c, entryIds: ids })),
        pullRequests: [...pullRequests]
          .sort((a, b) => byText(a.repository, b.repository) || a.number - b.number)
          .filter((p) => p.organizationId === organizationId)
          .map((p) => ({ p, ids: wanted(pullRequestEntries.filter((x) => x.pullRequestId === p.id).map((x) => x.entryId)) }))
          .filter(({ ids }) => ids.length > 0)
          .map(({ p, ids }) => presentPullRequest({ ...p, entryIds: ids })),
        ciRuns: [...runs]
          .sort((a, b) => byTime(a.completedAt, b.completedAt) || byText(a.kind, b.kind) || byText(a.externalId, b.externalId))
          .filter((r) => r.organizationId === organizationId)
          .map((r) => ({
            r,
            ids: wanted(linked.filter((l) => sameRepo(l.repo, r) && l.sha === r.headSha).map((l) => l.entryId)),
          }))
          .filter(({ ids }) => ids.length > 0)
          .map(({ r, ids }) => presentCiRun({ ...r, entryIds: ids })),
      };
    },
  };
  return store;
}
