import type { CodeEvidence } from '@cluster/contracts';
import { isUuid, type Knex } from '@cluster/db';
import type { ExternalLinkRow } from '../../shared/external-ref.ts';
import type { CiRunFact, CommitFact, PullRequestFact } from './github.ts';
import { presentCiRun, presentCommit, presentPullRequest } from './presenter.ts';

/**
 * A repository of a project, as a delivery names it (GitHub's spelling; names are matched
 * case-insensitively, as GitHub matches them).
 */
export interface CodeRepo {
  organizationId: string;
  projectId: string;
  provider: string;
  repository: string;
}

/** An entry as the code-host events name it. */
export interface EntryRef {
  id: string;
  entryNumber: number;
  projectId: string;
}

/** A stored pull request: what a delivery compares against (merged is sticky; order.ts). */
export interface PullRequestRow {
  id: string;
  state: string;
  merged: boolean;
  mergedAt: Date | string | null;
  /** The `updated_at` of the payload that stored this state. */
  sourceUpdatedAt: Date | string | null;
}

/** A stored CI run: what a delivery compares against (order.ts: an older payload changes nothing). */
export interface CiRunRow {
  id: string;
  status: string;
  attempt: number;
  /** The time of the payload that stored this state (CiRunFact.updatedAt). */
  sourceUpdatedAt: Date | string | null;
}

/** What the code-host feature reads and writes (all of its SQL). */
export interface CodeHostStore {
  /** The organization's sealed webhook secret for `provider`. */
  sealedSecret(organizationId: string, provider: string): Promise<string | undefined>;
  /** Creates or replaces it: `created` when there was none. */
  saveSecret(organizationId: string, provider: string, secretSealed: string): Promise<'created' | 'rotated'>;
  /** Forgets the delivery ids received before `before`; how many. */
  pruneDeliveries(before: Date): Promise<number>;
  /**
   * Remembers a delivery by its id and by the digest of its signed body; false when either was
   * remembered before (a redelivery, or the same signed body under a new id).
   */
  claimDelivery(delivery: {
    organizationId: string;
    provider: string;
    deliveryId: string;
    event: string;
    bodyDigest: string;
  }): Promise<boolean>;
  /** The project an integration link aligns the repository with (owner/name, case-insensitive), or null. */
  projectOfRepository(organizationId: string, provider: string, repository: string): Promise<string | null>;
  /** Serialises the deliveries of one repository (until the transaction ends). */
  lockRepository(organizationId: string, provider: string, repository: string): Promise<void>;
  /** The project's entries with these numbers. */
  entriesByNumber(projectId: string, numbers: readonly number[]): Promise<EntryRef[]>;
  saveCommit(repo: CodeRepo, commit: CommitFact): Promise<string>;
  /** Links a commit to entries; the ids of the entries it was not linked to before. */
  linkCommit(commitId: string, entryIds: readonly string[]): Promise<string[]>;
  findPullRequest(repo: CodeRepo, number: number): Promise<PullRequestRow | undefined>;
  savePullRequest(repo: CodeRepo, pr: PullRequestFact): Promise<string>;
  linkPullRequest(pullRequestId: string, entryIds: readonly string[]): Promise<string[]>;
  /** Every entry a pull request references (all links, not only this delivery's). */
  pullRequestEntries(pullRequestId: string): Promise<EntryRef[]>;
  findCiRun(repo: CodeRepo, kind: string, externalId: string): Promise<CiRunRow | undefined>;
  saveCiRun(repo: CodeRepo, run: CiRunFact): Promise<string>;
  /** Records that a run's conclusion was attributed to entries; the ids for which that conclusion is new. */
  attribute(ciRunId: string, entryIds: readonly string[], conclusion: string | null): Promise<string[]>;
  /** Entries linked to a commit: one that references them, or the head or merge commit of a pull request that does. */
  entriesOfSha(organizationId: string, provider: string, repository: string, sha: string): Promise<EntryRef[]>;
  /** The commits, pull requests and CI runs linked to the organization's entries among `entryIds`. */
  evidenceOf(organizationId: string, entryIds: readonly string[]): Promise<CodeEvidence>;
}

/**
 * Every (provider, repository, sha, entryId) of the organization: the commits that reference an entry,
 * and the head and merge commits of the pull requests that do. What CI runs and deployments attach to.
 */
function linkedShas(db: Knex, organizationId: string) {
  return db.raw(
    `SELECT c.provider, c.repository, c.sha, ce."entryId"
       FROM code_commits c JOIN code_commit_entries ce ON ce."commitId" = c.id
      WHERE c."organizationId" = :org
     UNION
     SELECT p.provider, p.repository, s.sha, pe."entryId"
       FROM code_pull_requests p JOIN code_pull_request_entries pe ON pe."pullRequestId" = p.id
       CROSS JOIN LATERAL (VALUES (p."headSha"), (p."mergeCommitSha")) AS s(sha)
      WHERE p."organizationId" = :org AND s.sha IS NOT NULL`,
    { org: organizationId },
  );
}

/** The knex implementation of CodeHostStore. */
export function createCodeHostStore(db: Knex): CodeHostStore {
  const entryRefs = (q: Knex.QueryBuilder) =>
    q.select('e.id', 'e.entryNumber', 'e.projectId').orderBy('e.entryNumber', 'asc') as Promise<EntryRef[]>;
  const link = async (table: string, column: string, id: string, entryIds: readonly string[]) => {
    if (entryIds.length === 0) return [];
    const rows = await db(table)
      .insert(entryIds.map((entryId) => ({ [column]: id, entryId })))
      .onConflict([column, 'entryId'])
      .ignore()
      .returning('entryId');
    return rows.map((r: { entryId: string }) => r.entryId);
  };
  const repoKey = (repo: CodeRepo) => ({
    organizationId: repo.organizationId,
    provider: repo.provider,
    repository: repo.repository,
  });

  return {
    async sealedSecret(organizationId, provider) {
      if (!isUuid(organizationId)) return undefined;
      const row = await db<{ organizationId: string; provider: string; secretSealed: string }>('codehost_secrets')
        .where({ organizationId, provider })
        .first('secretSealed');
      return row?.secretSealed;
    },
    async saveSecret(organizationId, provider, secretSealed) {
      const [row] = await db('codehost_secrets')
        .insert({ organizationId, provider, secretSealed })
        .onConflict(['organizationId', 'provider'])
        .merge({ secretSealed, updatedAt: db.fn.now() })
        .returning<{ created: boolean }[]>(db.raw('(xmax = 0) AS created'));
      return row.created ? 'created' : 'rotated';
    },
    async pruneDeliveries(before) {
      return db('codehost_deliveries').where('receivedAt', '<', before).del();
    },
    async claimDelivery(delivery) {
      // No conflict target: either unique key (the id, or the body's digest) makes it a duplicate.
      const rows = await db('codehost_deliveries').insert(delivery).onConflict().ignore().returning('deliveryId');
      return rows.length === 1;
    },
    async projectOfRepository(organizationId, provider, repository) {
      const row = await db<ExternalLinkRow>('integration_links')
        .where({ organizationId, provider, externalType: 'repository', alignEntityType: 'project' })
        .whereRaw('lower("externalId") = lower(?)', [repository])
        .orderBy('createdAt', 'asc')
        .first('alignEntityId');
      return row?.alignEntityId ?? null;
    },
    async lockRepository(organizationId, provider, repository) {
      await db.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [
        `codehost:${organizationId}:${provider}:${repository.toLowerCase()}`,
      ]);
    },
    entriesByNumber(projectId, numbers) {
      if (numbers.length === 0) return Promise.resolve([]);
      return entryRefs(
        db('entries as e')
          .where('e.projectId', projectId)
          .whereIn('e.entryNumber', [...numbers]),
      );
    },
    async saveCommit(repo, commit) {
      const [row] = await db('code_commits')
        .insert({ ...repo, ...commit })
        .onConflict(['organizationId', 'provider', 'repository', 'sha'])
        .merge({ updatedAt: db.fn.now() })
        .returning<{ id: string }[]>('id');
      return row.id;
    },
    linkCommit: (commitId, entryIds) => link('code_commit_entries', 'commitId', commitId, entryIds),
    async findPullRequest(repo, number) {
      const row: PullRequestRow | undefined = await db('code_pull_requests')
        .where({ ...repoKey(repo), number })
        .first('id', 'state', 'merged', 'mergedAt', 'sourceUpdatedAt');
      return row;
    },
    async savePullRequest(repo, pr) {
      const values = {
        title: pr.title,
        url: pr.url,
        state: pr.state,
        merged: pr.merged,
        mergedAt: pr.mergedAt,
        headSha: pr.headSha,
        mergeCommitSha: pr.mergeCommitSha,
        sourceUpdatedAt: pr.updatedAt,
      };
      const [row] = await db('code_pull_requests')
        .insert({ ...repo, number: pr.number, ...values })
        .onConflict(['organizationId', 'provider', 'repository', 'number'])
        .merge({ ...values, projectId: repo.projectId, updatedAt: db.fn.now() })
        .returning<{ id: string }[]>('id');
      return row.id;
    },
    linkPullRequest: (pullRequestId, entryIds) => link('code_pull_request_entries', 'pullRequestId', pullRequestId, entryIds),
    pullRequestEntries(pullRequestId) {
      return entryRefs(
        db('code_pull_request_entries as pe').join('entries as e', 'e.id', 'pe.entryId').where('pe.pullRequestId', pullRequestId),
      );
    },
    async findCiRun(repo, kind, externalId) {
      const row: CiRunRow | undefined = await db('code_ci_runs')
        .where({ organizationId: repo.organizationId, provider: repo.provider, kind, externalId })
        .first('id', 'status', 'attempt', 'sourceUpdatedAt');
      return row;
    },
    async saveCiRun(repo, run) {
      const values = {
        repository: repo.repository,
        projectId: repo.projectId,
        name: run.name,
        headSha: run.headSha,
        status: run.status,
        conclusion: run.conclusion,
        url: run.url,
        completedAt: run.completedAt,
        attempt: run.attempt,
        sourceUpdatedAt: run.updatedAt,
      };
      const [row] = await db('code_ci_runs')
        .insert({
          organizationId: repo.organizationId,
          provider: repo.provider,
          kind: run.kind,
          externalId: run.externalId,
          ...values,
        })
        .onConflict(['organizationId', 'provider', 'kind', 'externalId'])
        .merge({ ...values, updatedAt: db.fn.now() })
        .returning<{ id: string }[]>('id');
      return row.id;
    },
    async attribute(ciRunId, entryIds, conclusion) {
      if (entryIds.length === 0) return [];
      const rows = await db('code_ci_run_attributions')
        .insert(entryIds.map((entryId) => ({ ciRunId, entryId, conclusion })))
        .onConflict(['ciRunId', 'entryId'])
        .merge(['conclusion'])
        .whereRaw('code_ci_run_attributions.conclusion IS DISTINCT FROM excluded.conclusion')
        .returning('entryId');
      return rows.map((r: { entryId: string }) => r.entryId);
    },
    async entriesOfSha(organizationId, provider, repository, sha) {
      return entryRefs(
        db
          .with('linked', linkedShas(db, organizationId))
          .from('linked as l')
          .join('entries as e', 'e.id', 'l.entryId')
          .where({ 'l.provider': provider, 'l.sha': sha })
          .whereRaw('lower(l.repository) = lower(?)', [repository])
          .distinct(),
      );
    },
    async evidenceOf(organizationId, entryIds) {
      if (entryIds.length === 0) return { commits: [], pullRequests: [], ciRuns: [] };
      const ids = [...entryIds];
      const entriesOf = (column: string) =>
        db.raw(`array_agg(DISTINCT ${column}::text COLLATE "C" ORDER BY ${column}::text COLLATE "C") AS "entryIds"`);
      const commits = await db('code_commits as c')
        .join('code_commit_entries as ce', 'ce.commitId', 'c.id')
        .where('c.organizationId', organizationId)
        .whereIn('ce.entryId', ids)
        .groupBy('c.id')
        .select('c.*', entriesOf('ce."entryId"'))
        .orderByRaw('c."committedAt" ASC NULLS LAST, c.repository, c.sha');
      const pullRequests = await db('code_pull_requests as p')
        .join('code_pull_request_entries as pe', 'pe.pullRequestId', 'p.id')
        .where('p.organizationId', organizationId)
        .whereIn('pe.entryId', ids)
        .groupBy('p.id')
        .select('p.*', entriesOf('pe."entryId"'))
        .orderBy([{ column: 'p.repository' }, { column: 'p.number' }]);
      const ciRuns = await db
        .with('linked', linkedShas(db, organizationId))
        .from('code_ci_runs as r')
        .join('linked as l', function () {
          this.on('l.provider', 'r.provider')
            .andOn('l.sha', 'r.headSha')
            .andOn(db.raw('lower(l.repository) = lower(r.repository)'));
        })
        .where('r.organizationId', organizationId)
        .whereIn('l.entryId', ids)
        .groupBy('r.id')
        .select('r.*', entriesOf('l."entryId"'))
        .orderByRaw('r."completedAt" ASC NULLS LAST, r.kind, r."externalId"');
      return {
        commits: commits.map(presentCommit),
        pullRequests: pullRequests.map(presentPullRequest),
        ciRuns: ciRuns.map(presentCiRun),
      };
    },
  };
}
