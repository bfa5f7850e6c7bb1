import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { describeStoreContract, useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { fakeWorld, postgresWorld, type CoreWorld } from '../../shared/contract-world.ts';
import type { CiRunFact, CommitFact, PullRequestFact } from './github.ts';
import type { CodeRepo } from './store.ts';

const iso = (v: unknown) => (v === null ? null : new Date(v as string).toISOString());

/** An organization, a project with three entries, and the project's repository (linked by an integration link). */
async function setting(w: CoreWorld) {
  const org = await w.organization();
  const project = await w.project(org);
  const entries = [await w.entry(project), await w.entry(project), await w.entry(project)];
  const repo: CodeRepo = { organizationId: org, projectId: project.id, provider: 'github', repository: 'Acme/Rocket' };
  return { org, project, entries, repo };
}

const commit = (sha: string, committedAt: string | null, over: Partial<CommitFact> = {}): CommitFact => ({
  sha,
  message: `fix ${sha}`,
  url: null,
  authorName: 'ada',
  committedAt,
  ...over,
});

const pullRequest = (number: number, over: Partial<PullRequestFact> = {}): PullRequestFact => ({
  number,
  action: 'opened',
  title: `PR ${number}`,
  body: '',
  url: null,
  state: 'open',
  merged: false,
  mergedAt: null,
  headSha: `head${number}`,
  mergeCommitSha: null,
  updatedAt: '2024-05-01T10:00:00.000Z',
  ...over,
});

const ciRun = (externalId: string, headSha: string, over: Partial<CiRunFact> = {}): CiRunFact => ({
  kind: 'check_run',
  externalId,
  name: 'ci',
  headSha,
  status: 'completed',
  conclusion: 'success',
  url: null,
  completedAt: null,
  attempt: 1,
  updatedAt: '2024-05-01T10:00:00.000Z',
  ...over,
});

// CodeHostStore held to Postgres.
describeStoreContract('CodeHostStore', {
  database: useContractDatabase('core', migrations),
  fake: fakeWorld,
  postgres: postgresWorld,
  cases: {
    'secrets: none, created, then rotated; per organization and provider': async (w) => {
      const org = await w.organization();
      const store = w.stores.codehost;
      expect(await store.sealedSecret(org, 'github')).toBeUndefined();
      expect(await store.sealedSecret('not-a-uuid', 'github')).toBeUndefined();
      expect(await store.saveSecret(org, 'github', 's1')).toBe('created');
      expect(await store.saveSecret(org, 'github', 's2')).toBe('rotated');
      expect(await store.sealedSecret(org, 'github')).toBe('s2');
      expect(await store.sealedSecret(org, 'gitlab')).toBeUndefined();
      expect(await store.sealedSecret(await w.organization(), 'github')).toBeUndefined();
    },
    'claimDelivery: once per delivery id and once per signed body; pruned deliveries are forgotten': async (w) => {
      const org = await w.organization();
      const store = w.stores.codehost;
      const delivery = {
        organizationId: org,
        provider: 'github',
        deliveryId: randomUUID(),
        event: 'push',
        bodyDigest: randomUUID(),
      };
      expect(await store.claimDelivery(delivery)).toBe(true);
      expect(await store.claimDelivery(delivery)).toBe(false);
      expect(await store.claimDelivery({ ...delivery, deliveryId: randomUUID() })).toBe(false);
      expect(await store.claimDelivery({ ...delivery, bodyDigest: randomUUID() })).toBe(false);
      expect(await store.claimDelivery({ ...delivery, organizationId: await w.organization() })).toBe(true);
      expect(await store.pruneDeliveries(new Date(Date.now() - 3_600_000))).toBe(0);
      expect(await store.pruneDeliveries(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(2);
      expect(await store.claimDelivery(delivery)).toBe(true);
    },
    'projectOfRepository: the project a repository link aligns with, whatever the name’s case': async (w) => {
      const { org, project, repo } = await setting(w);
      expect(await w.stores.codehost.projectOfRepository(org, 'github', repo.repository)).toBeNull();
      await w.stores.integrationLinks.insertExternalLink({
        organizationId: org,
        projectId: project.id,
        ref: { provider: 'github', externalType: 'repository', externalId: repo.repository },
        alignEntityType: 'project',
        alignEntityId: project.id,
      });
      expect(await w.stores.codehost.projectOfRepository(org, 'github', 'acme/rocket')).toBe(project.id);
      expect(await w.stores.codehost.projectOfRepository(org, 'gitlab', 'acme/rocket')).toBeNull();
    },
    'entriesByNumber, commits and their links: saved once, linked once': async (w) => {
      const { project, entries, repo } = await setting(w);
      const store = w.stores.codehost;
      const refs = await store.entriesByNumber(project.id, [3, 1, 9]);
      expect(refs).toEqual(
        [entries[0], entries[2]].map((e) => ({ id: e.id, entryNumber: e.entryNumber, projectId: project.id })),
      );
      expect(await store.entriesByNumber(project.id, [])).toEqual([]);
      const id = await store.saveCommit(repo, commit('a1', null));
      expect(await store.saveCommit(repo, commit('a1', null))).toBe(id);
      expect(await store.linkCommit(id, [entries[0].id, entries[1].id])).toEqual([entries[0].id, entries[1].id]);
      expect(await store.linkCommit(id, [entries[1].id, entries[2].id])).toEqual([entries[2].id]);
      expect(await store.linkCommit(id, [])).toEqual([]);
      expect((await store.entriesOfSha(repo.organizationId, 'github', 'acme/ROCKET', 'a1')).map((e) => e.entryNumber)).toEqual([
        1, 2, 3,
      ]);
    },
    'pull requests: saved once per number, updated in place, read back; their entries and commits': async (w) => {
      const { entries, repo } = await setting(w);
      const store = w.stores.codehost;
      expect(await store.findPullRequest(repo, 7)).toBeUndefined();
      const id = await store.savePullRequest(repo, pullRequest(7));
      const merged = { state: 'closed' as const, merged: true, mergedAt: '2024-05-02T00:00:00.000Z', mergeCommitSha: 'm7' };
      expect(await store.savePullRequest(repo, pullRequest(7, { ...merged, updatedAt: '2024-05-02T00:00:00.000Z' }))).toBe(id);
      const row = await store.findPullRequest(repo, 7);
      expect({ ...row, mergedAt: iso(row?.mergedAt), sourceUpdatedAt: iso(row?.sourceUpdatedAt) }).toEqual({
        id,
        state: 'closed',
        merged: true,
        mergedAt: '2024-05-02T00:00:00.000Z',
        sourceUpdatedAt: '2024-05-02T00:00:00.000Z',
      });
      expect(await store.linkPullRequest(id, [entries[2].id, entries[0].id])).toEqual([entries[2].id, entries[0].id]);
      expect((await store.pullRequestEntries(id)).map((e) => e.entryNumber)).toEqual([1, 3]);
      for (const sha of ['head7', 'm7'])
        expect((await store.entriesOfSha(repo.organizationId, 'github', repo.repository, sha)).map((e) => e.entryNumber)).toEqual(
          [1, 3],
        );
    },
    'CI runs: saved once per kind and id, read back; attribute answers the entries whose conclusion is new': async (w) => {
      const { entries, repo } = await setting(w);
      const store = w.stores.codehost;
      const id = await store.saveCiRun(repo, ciRun('r1', 'a1', { status: 'in_progress', conclusion: null }));
      expect(await store.saveCiRun(repo, ciRun('r1', 'a1', { attempt: 2 }))).toBe(id);
      const row = await store.findCiRun(repo, 'check_run', 'r1');
      expect({ ...row, sourceUpdatedAt: iso(row?.sourceUpdatedAt) }).toEqual({
        id,
        status: 'completed',
        attempt: 2,
        sourceUpdatedAt: '2024-05-01T10:00:00.000Z',
      });
      expect(await store.findCiRun(repo, 'workflow_run', 'r1')).toBeUndefined();
      const [a, b] = [entries[0].id, entries[1].id];
      expect(await store.attribute(id, [a, b], 'success')).toEqual([a, b]);
      expect(await store.attribute(id, [a, b], 'success')).toEqual([]);
      expect(await store.attribute(id, [b], 'failure')).toEqual([b]);
      expect(await store.attribute(id, [], 'failure')).toEqual([]);
    },
    'evidenceOf: commits by time (undated last), pull requests by repository and number, CI runs by completion': async (w) => {
      const { org, entries, repo } = await setting(w);
      const store = w.stores.codehost;
      const [e1, e2, e3] = entries.map((e) => e.id);
      const other = { ...repo, repository: 'Acme/Booster' };
      await store.linkCommit(await store.saveCommit(repo, commit('c-late', '2024-05-03T00:00:00.000Z')), [e1]);
      await store.linkCommit(await store.saveCommit(repo, commit('c-undated', null)), [e2]);
      await store.linkCommit(await store.saveCommit(repo, commit('c-early', '2024-05-01T00:00:00.000Z')), [e1, e2]);
      await store.linkCommit(await store.saveCommit(repo, commit('c-else', null)), [e3]);
      await store.linkPullRequest(await store.savePullRequest(repo, pullRequest(9)), [e1]);
      await store.linkPullRequest(await store.savePullRequest(repo, pullRequest(2)), [e2]);
      await store.linkPullRequest(await store.savePullRequest(other, pullRequest(5)), [e1]);
      await store.saveCiRun(repo, ciRun('r-late', 'c-late', { completedAt: '2024-05-04T00:00:00.000Z' }));
      await store.saveCiRun(repo, ciRun('r-open', 'head2', { status: 'queued', conclusion: null }));
      await store.saveCiRun(repo, ciRun('r-early', 'c-early', { completedAt: '2024-05-02T00:00:00.000Z' }));
      await store.saveCiRun(repo, ciRun('r-else', 'c-else', { completedAt: '2024-05-01T00:00:00.000Z' }));
      const evidence = await store.evidenceOf(org, [e1, e2]);
      expect(evidence.commits.map((c) => [c.sha, c.entryIds])).toEqual([
        ['c-early', [e1, e2].sort()],
        ['c-late', [e1]],
        ['c-undated', [e2]],
      ]);
      expect(evidence.pullRequests.map((p) => [p.repository, p.number])).toEqual([
        ['Acme/Booster', 5],
        ['Acme/Rocket', 2],
        ['Acme/Rocket', 9],
      ]);
      expect(evidence.ciRuns.map((r) => [r.externalId, r.entryIds])).toEqual([
        ['r-early', [e1, e2].sort()],
        ['r-late', [e1]],
        ['r-open', [e2]],
      ]);
      expect(await store.evidenceOf(await w.organization(), [e1])).toEqual({ commits: [], pullRequests: [], ciRuns: [] });
      expect(await store.evidenceOf(org, [])).toEqual({ commits: [], pullRequests: [], ciRuns: [] });
    },
  },
});
