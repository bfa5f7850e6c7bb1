import pLimit from 'p-limit';
import { entryNumbersIn, type CodeEvidence, type PlatformCheck } from '@cluster/contracts';
import { attestCode, type Attest } from './attest.ts';
import type { GithubApi, GithubRead } from './github-app.ts';

// The platform's own check of a release's code-hosting facts with GitHub (docs/evidence.md, "Platform
// verification with a GitHub App"): each fact a webhook asserted is compared with what GitHub's REST
// API answers the platform's GitHub App. The same answer: `confirmed` (platform-attested); another
// answer, or GitHub's 404: `contradicted`; no App installation on the repository, or no answer in
// time: `unchecked` (the fact stays the organization's word, and the package is still built).

/** What the check needs: the App's reads, its deadline, and where a failed read is reported. */
export interface GithubCheckOptions {
  /** The deadline of all of a package's reads together; what is not answered by then stays unchecked. */
  timeoutMs: number;
  /** Reads in flight at once. */
  concurrency?: number;
  /** A read that failed (GitHub down, refused, too slow): called once per package, with the first failure. */
  onFailure?: (err: unknown) => void;
}

/** `owner/name` as GitHub spells a repository: no `.` or `..` segment, nothing a path could be bent with. */
const REPOSITORY = /^(?!\.{1,2}\/)[A-Za-z0-9_.-]{1,100}\/(?!\.{1,2}$)[A-Za-z0-9_.-]{1,100}$/;
/** Pages of a commit's check runs read at most (100 each). */
const MAX_CHECK_RUN_PAGES = 10;

type Pull = {
  state?: string;
  merged?: boolean;
  merged_at?: string | null;
  title?: string;
  body?: string | null;
  head?: { sha?: string };
  merge_commit_sha?: string | null;
};
type Commit = { sha?: string; commit?: { message?: string; author?: { name?: string } | null } };
type Run = { id?: number; name?: string; head_sha?: string; status?: string; conclusion?: string | null };

/** Two times of GitHub's (RFC 3339, any precision) the same instant, or both absent. */
const sameTime = (a: string | null | undefined, b: string | null) =>
  a === null || a === undefined || b === null ? (a ?? null) === b : Date.parse(a) === Date.parse(b);

const sameRun = (run: Run, fact: CodeEvidence['ciRuns'][number]) =>
  String(run.id) === fact.externalId &&
  run.name === fact.name &&
  run.head_sha === fact.headSha &&
  run.status === fact.status &&
  (run.conclusion ?? null) === fact.conclusion;

/** A GitHub App check of code-hosting facts: the Attest of a cluster whose operator configured the App. */
export function createGithubAttest(github: GithubApi, opts: GithubCheckOptions): Attest {
  return async (code, entries) => {
    const numberOf = new Map(entries.map((e) => [e.id, e.entryNumber]));
    /** Whether `texts` reference every entry of `entryIds` (how the core linked the fact to them). */
    const referencesAll = (entryIds: readonly string[], ...texts: (string | null | undefined)[]) => {
      const referenced = new Set(entryNumbersIn(...texts));
      return entryIds.every((id) => referenced.has(numberOf.get(id) ?? 0));
    };
    const signal = AbortSignal.timeout(opts.timeoutMs);
    // Octokit's token exchange takes no signal: whatever is still waiting at the deadline is given up on here.
    const deadline = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
    );
    deadline.catch(() => undefined);
    const limit = pLimit(opts.concurrency ?? 4);
    const reads = new Map<string, Promise<GithubRead | undefined>>();
    /** One read of each route and parameters per package, at most `concurrency` at once. */
    const read = (repository: string, route: string, params: Record<string, string | number>) => {
      const key = JSON.stringify([repository.toLowerCase(), route, params]);
      let pending = reads.get(key);
      if (!pending) {
        pending = limit(() => github.read(repository, route, params, signal));
        reads.set(key, pending);
      }
      return pending;
    };
    let failure: unknown;
    /** The verdict on one fact: unchecked for a provider or repository the App cannot read, or a failed read. */
    const check = async (
      fact: { provider: string; repository: string },
      judge: () => Promise<PlatformCheck>,
    ): Promise<PlatformCheck> => {
      if (fact.provider !== 'github' || !REPOSITORY.test(fact.repository)) return 'unchecked';
      try {
        return await Promise.race([judge(), deadline]);
      } catch (err) {
        failure ??= err;
        return 'unchecked';
      }
    };
    /** The verdict of one read: unchecked when the App is not installed, contradicted on 404, else `same(data)`. */
    const verdict = <T>(got: GithubRead | undefined, same: (data: T) => boolean): PlatformCheck =>
      got === undefined ? 'unchecked' : got.found && same(got.data as T) ? 'confirmed' : 'contradicted';

    /** The check runs GitHub lists for a commit, every page (up to MAX_CHECK_RUN_PAGES): runs, or undefined when not installed. */
    const checkRunsOf = async (repository: string, sha: string): Promise<Run[] | undefined> => {
      const runs: Run[] = [];
      for (let page = 1; page <= MAX_CHECK_RUN_PAGES; page++) {
        const got = await read(repository, 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
          ref: sha,
          filter: 'all',
          per_page: 100,
          page,
        });
        if (got === undefined) return undefined;
        if (!got.found) return runs;
        const data = got.data as { total_count?: number; check_runs?: Run[] };
        runs.push(...(data.check_runs ?? []));
        if (runs.length >= (data.total_count ?? 0) || (data.check_runs ?? []).length === 0) break;
      }
      return runs;
    };

    const [commits, pullRequests, ciRuns] = await Promise.all([
      Promise.all(
        code.commits.map((fact) =>
          check(fact, async () =>
            verdict<Commit>(
              await read(fact.repository, 'GET /repos/{owner}/{repo}/commits/{ref}', { ref: fact.sha }),
              (c) =>
                c.sha === fact.sha &&
                c.commit?.message === fact.message &&
                (fact.authorName === null || c.commit?.author?.name === fact.authorName) &&
                referencesAll(fact.entryIds, c.commit?.message),
            ),
          ),
        ),
      ),
      Promise.all(
        code.pullRequests.map((fact) =>
          check(fact, async () =>
            verdict<Pull>(
              await read(fact.repository, 'GET /repos/{owner}/{repo}/pulls/{pull_number}', { pull_number: fact.number }),
              (p) =>
                p.state === fact.state &&
                p.merged === fact.merged &&
                sameTime(p.merged_at, fact.mergedAt) &&
                p.title === fact.title &&
                (fact.headSha === null || p.head?.sha === fact.headSha) &&
                (!fact.merged || p.merge_commit_sha === fact.mergeCommitSha) &&
                referencesAll(fact.entryIds, p.title, p.body),
            ),
          ),
        ),
      ),
      Promise.all(
        code.ciRuns.map((fact) =>
          check(fact, async () => {
            if (fact.kind === 'workflow_run') {
              const got = await read(fact.repository, 'GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
                run_id: fact.externalId,
              });
              return verdict<Run>(got, (r) => sameRun(r, fact));
            }
            const runs = await checkRunsOf(fact.repository, fact.headSha);
            if (runs === undefined) return 'unchecked';
            return runs.some((r) => sameRun(r, fact)) ? 'confirmed' : 'contradicted';
          }),
        ),
      ),
    ]);
    if (failure !== undefined) opts.onFailure?.(failure);
    return attestCode(code, { commits, pullRequests, ciRuns });
  };
}
