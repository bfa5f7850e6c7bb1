import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvidenceBeside, startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { startFakeGithub, type FakeGithub } from './support/fake-github.ts';
import { codehostSecret, githubExample, githubSignature, postHook, type Payload } from './support/github.ts';
import { runVerifier } from './support/verify-evidence.ts';

// Who attests the code-hosting facts of a release's evidence (docs/evidence.md, "Who attests the
// code-hosting facts"; issue 37 item 2). The organization holds its GitHub webhook secret, so it can
// sign any delivery it likes: a `workflow_run` completed `success` for CI that never ran is accepted,
// recorded, and would make `pull_requests_merged_green` pass. The platform signature vouches for the
// package's bytes, not for that word: the package and the verifier must say whose word each fact is,
// and a fact becomes the platform's only when the platform's GitHub App reads the same from GitHub's
// REST API (here a local server that speaks those endpoints and checks the App's JWT: support/fake-github.ts).

const REPO = 'octo-org/shop';
const HEAD = '1'.repeat(40);
const MERGE = '2'.repeat(40);
const work = mkdtempSync(path.join(tmpdir(), 'attestation-'));

let c: TestCluster;
let org: SeededOrg;
let secret: string;
let keysFile: string;

type Fact = Payload & { attestedBy: string; platformCheck: string };
type Package = {
  checklists: { id: string; passed: boolean; failingEntryIds: string[]; attestedBy: string }[];
  codeHosting: { commits: Fact[]; pullRequests: Fact[]; ciRuns: Fact[] };
};

const saved = (name: string, content: Buffer | string) => {
  const file = path.join(work, `${Math.random().toString(36).slice(2)}-${name}`);
  writeFileSync(file, content);
  return file;
};

/** A delivery signed with the organization's own secret, as the tenant can sign anything. */
async function deliver(event: string, payload: Payload) {
  const body = JSON.stringify(payload);
  const res = await postHook(c, org.orgId, event, body, { signature: githubSignature(secret, body) });
  expect(res.status, res.text).toBe(200);
}

/** A merged pull request of REPO whose body references entry `n`. */
function mergedPullRequest(n: number, number: number): Payload {
  const p = githubExample('pull_request', (x) => x.action === 'closed');
  p.repository.full_name = REPO;
  p.number = number;
  Object.assign(p.pull_request, {
    number,
    title: 'Checkout rounding',
    body: `Fixes E-${n}.`,
    state: 'closed',
    merged: true,
    merged_at: '2026-11-20T10:00:00Z',
    updated_at: '2026-11-20T10:00:00Z',
    merge_commit_sha: MERGE,
  });
  p.pull_request.head.sha = HEAD;
  return p;
}

/** A workflow run of REPO completed `success` on `sha`: whether it ran, only GitHub knows. */
function greenWorkflowRun(sha: string, id: number): Payload {
  const p = githubExample('workflow_run', (x) => x.workflow_run.conclusion === 'success');
  p.repository.full_name = REPO;
  Object.assign(p.workflow_run, { id, name: 'CI', head_sha: sha, status: 'completed', conclusion: 'success', run_attempt: 1 });
  return p;
}

/** A check run of REPO completed `success` on `sha`. */
function greenCheckRun(sha: string, id: number, name: string): Payload {
  const p = githubExample('check_run', (x) => x.action === 'completed' && x.check_run.conclusion === 'success');
  p.repository.full_name = REPO;
  Object.assign(p.check_run, { id, name, head_sha: sha, status: 'completed', conclusion: 'success' });
  return p;
}

/** A push of one commit of REPO. */
function push(sha: string, message: string): Payload {
  const p = githubExample('push', (x) => x.commits.length === 1);
  p.repository.full_name = REPO;
  p.commits[0] = { ...p.commits[0], id: sha, message, author: { ...p.commits[0].author, name: 'Ada' } };
  p.head_commit = p.commits[0];
  return p;
}

/** A new release holding one new entry; its id and the entry's number. */
async function releaseWithEntry(name: string) {
  const release = await c.api(org.key, 'POST', `/projects/${org.projectId}/releases`, {
    name,
    startDate: '2026-11-01',
    endDate: '2026-12-01',
  });
  const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
    type: 'feature_request',
    title: name,
    description: '-',
    releaseId: release.body.id,
  });
  expect(entry.status).toBe(201);
  return {
    releaseId: release.body.id as string,
    entryId: entry.body.id as string,
    entryNumber: entry.body.entryNumber as number,
  };
}

/** The release's current evidence through `baseUrl`'s gateway (default: the cluster's, which has no GitHub App): its bytes, parsed, and the headers file. */
async function evidence(releaseId: string, baseUrl = c.baseUrl) {
  const res = await fetch(`${baseUrl}/releases/${releaseId}/evidence`, { headers: { authorization: `Bearer ${org.key}` } });
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  const headers = ['HTTP/1.1 200 OK', ...[...res.headers.entries()].map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
  return {
    bytes,
    pkg: JSON.parse(bytes.toString('utf8')) as Package & { sequence: number },
    headers: saved('headers.txt', headers),
  };
}

/** The documented verifier on a package (the test cluster signs with the development key); its exit code and output. */
async function verify(got: { bytes: Buffer; headers: string }, ...args: string[]) {
  const argv = ['--keys', keysFile, '--headers', got.headers, '--allow-development-key', ...args];
  const { code, stdout } = await runVerifier(argv, saved('pkg.json', got.bytes));
  return { code, out: stdout };
}

const checklist = (pkg: Package, id: string) => pkg.checklists.find((k) => k.id === id)!;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Attested');
  secret = await codehostSecret(c, org.orgId);
  const link = await c.api(org.key, 'POST', '/integration-links', {
    provider: 'github',
    externalType: 'repository',
    externalId: REPO,
    alignEntityType: 'project',
    alignEntityId: org.projectId,
  });
  expect(link.status).toBe(201);
  const keys = await fetch(`${c.baseUrl.replace('/api/v1', '')}/.well-known/evidence-keys.json`);
  keysFile = saved('keys.json', Buffer.from(await keys.arrayBuffer()));
}, 120_000);
afterAll(async () => {
  await c?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('code-hosting facts only the organization signed', () => {
  it('a tenant-signed workflow_run success for CI that never ran: the package marks it organization-attested, and so does the verifier', async () => {
    const { releaseId, entryNumber } = await releaseWithEntry('Unattested');
    await deliver('pull_request', mergedPullRequest(entryNumber, 41));
    await deliver('workflow_run', greenWorkflowRun(MERGE, 9_000_001));

    const got = await evidence(releaseId);
    // The webhook's word is recorded as it was given, and the checklist passes on it...
    expect(got.pkg.codeHosting.pullRequests).toMatchObject([{ number: 41, merged: true }]);
    expect(got.pkg.codeHosting.ciRuns).toMatchObject([{ kind: 'workflow_run', externalId: '9000001', conclusion: 'success' }]);
    expect(checklist(got.pkg, 'pull_requests_merged_green')).toMatchObject({ passed: true, failingEntryIds: [] });
    // ...but every fact, and every conclusion drawn from them, says it is only the organization's word.
    for (const fact of [...got.pkg.codeHosting.pullRequests, ...got.pkg.codeHosting.ciRuns])
      expect(fact).toMatchObject({ attestedBy: 'organization', platformCheck: 'unchecked' });
    expect(got.pkg.checklists.map((k) => [k.id, k.attestedBy])).toEqual([
      ['entries_done', 'platform'],
      ['bug_reports_complete', 'platform'],
      ['entries_approved', 'platform'],
      ['entries_have_commits', 'organization'],
      ['pull_requests_merged_green', 'organization'],
    ]);
    // The platform signature is valid (the platform did make these bytes), and the verifier says whose word the code facts are.
    const verified = await verify(got);
    expect(verified.code).toBe(0);
    expect(verified.out).toMatch(
      /^valid: platform signature \(key [^)]+\), package 1 \(no earlier package given\); code-hosting facts: organization-attested \(not verified by the platform\), all 2; checklists on the organization's word: entries_have_commits, pull_requests_merged_green$/,
    );
    // An auditor who accepts only what the platform verified is refused this package.
    expect(await verify(got, '--require-platform-verified')).toMatchObject({
      code: 1,
      out: expect.stringMatching(/^invalid: not every code-hosting fact is verified by the platform: /),
    });
  });
});

/** Each fact's platformCheck, by kind: what the GitHub App found. */
const checks = (pkg: Package) => ({
  commits: pkg.codeHosting.commits.map((f) => [f.sha, f.attestedBy, f.platformCheck]),
  pullRequests: pkg.codeHosting.pullRequests.map((f) => [f.number, f.attestedBy, f.platformCheck]),
  ciRuns: pkg.codeHosting.ciRuns.map((f) => [f.kind, f.externalId, f.attestedBy, f.platformCheck]),
});

describe('code-hosting facts the platform confirmed with GitHub', () => {
  const HEAD2 = '3'.repeat(40);
  const MERGE2 = '4'.repeat(40);
  const COMMIT2 = '5'.repeat(40);
  let github: FakeGithub;
  /** An evidence service with the GitHub App, and a gateway in front of it. */
  let stack: { baseUrl: string; stop(): Promise<void> };
  let release: Awaited<ReturnType<typeof releaseWithEntry>>;

  /** An evidence service configured with `githubApp`, behind its own gateway, on the cluster's core and database. */
  async function evidenceWithApp(githubApp: { appId: string; privateKey: string; apiUrl: string }) {
    const beside = await startEvidenceBeside(c, { githubApp: { ...githubApp, checkTimeoutMs: 1500 } });
    return { baseUrl: `${beside.root}/api/v1`, stop: beside.stop };
  }

  beforeAll(async () => {
    github = await startFakeGithub();
    github.installed.add(REPO);
    stack = await evidenceWithApp({ appId: github.appId, privateKey: github.privateKey, apiUrl: github.url });
    release = await releaseWithEntry('Verified');
    const n = release.entryNumber;
    const pr = mergedPullRequest(n, 43);
    Object.assign(pr.pull_request, { title: 'Totals', body: `Implements E-${n}.`, merge_commit_sha: MERGE2 });
    pr.pull_request.head.sha = HEAD2;
    const workflow = greenWorkflowRun(MERGE2, 9_000_002);
    await deliver('push', push(COMMIT2, `Round totals (E-${n})`));
    await deliver('pull_request', pr);
    await deliver('check_run', greenCheckRun(MERGE2, 7001, 'lint'));
    await deliver('workflow_run', workflow);
    // What GitHub itself holds: the commit, the pull request and the check run, as delivered; the
    // workflow run never ran.
    github.records.set(`commits/${COMMIT2}`, {
      sha: COMMIT2,
      commit: { message: `Round totals (E-${n})`, author: { name: 'Ada' } },
    });
    github.records.set('pulls/43', {
      number: 43,
      state: 'closed',
      merged: true,
      merged_at: '2026-11-20T10:00:00Z',
      title: 'Totals',
      body: `Implements E-${n}.`,
      head: { sha: HEAD2 },
      merge_commit_sha: MERGE2,
    });
    github.records.set(`commits/${MERGE2}/check-runs`, [
      { id: 6999, name: 'other', head_sha: MERGE2, status: 'completed', conclusion: 'failure' },
      { id: 7001, name: 'lint', head_sha: MERGE2, status: 'completed', conclusion: 'success' },
    ]);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await github?.close();
  });

  it('marks platform-attested what GitHub confirms, contradicted what it does not hold; the verifier says which', async () => {
    const got = await evidence(release.releaseId, stack.baseUrl);
    expect(checks(got.pkg)).toEqual({
      commits: [[COMMIT2, 'platform', 'confirmed']],
      pullRequests: [[43, 'platform', 'confirmed']],
      ciRuns: expect.arrayContaining([
        ['check_run', '7001', 'platform', 'confirmed'],
        // The tenant-signed success of CI that never ran: GitHub has no such run.
        ['workflow_run', '9000002', 'organization', 'contradicted'],
      ]),
    });
    expect(got.pkg.codeHosting.ciRuns).toHaveLength(2);
    // A contradicted run counts for nothing: the pull request is not merged green; the commit check rests on the platform alone.
    expect(got.pkg.checklists.slice(3).map((k) => [k.id, k.passed, k.failingEntryIds, k.attestedBy])).toEqual([
      ['entries_have_commits', true, [], 'platform'],
      ['pull_requests_merged_green', false, [release.entryId], 'organization'],
    ]);
    expect((await verify(got)).out).toMatch(
      /; code-hosting facts: 3 verified by the platform with GitHub, 1 organization-attested \(not verified by the platform\); 1 contradicted by GitHub \(counted for no checklist\); checklists on the organization's word: pull_requests_merged_green$/,
    );
    // It asked GitHub as the App (its JWT for the installation, then an installation token), reading only what it checks.
    expect(github.refusedJwts).toBe(0);
    expect(new Set(github.seen)).toEqual(
      new Set([
        `GET /repos/${REPO}/installation`,
        'POST /app/installations/1000/access_tokens',
        `GET /repos/${REPO}/commits/${COMMIT2}`,
        `GET /repos/${REPO}/pulls/43`,
        `GET /repos/${REPO}/commits/${MERGE2}/check-runs`,
        `GET /repos/${REPO}/actions/runs/9000002`,
      ]),
    );

    // Once GitHub holds the run, the next package is platform-attested throughout, and passes.
    github.records.set('actions/runs/9000002', {
      id: 9_000_002,
      name: 'CI',
      head_sha: MERGE2,
      status: 'completed',
      conclusion: 'success',
    });
    const confirmed = await evidence(release.releaseId, stack.baseUrl);
    expect(confirmed.pkg.sequence).toBe(got.pkg.sequence + 1);
    expect(checks(confirmed.pkg).ciRuns.map((r) => r.slice(2))).toEqual([
      ['platform', 'confirmed'],
      ['platform', 'confirmed'],
    ]);
    expect(confirmed.pkg.checklists.map((k) => k.attestedBy)).toEqual(Array(5).fill('platform'));
    expect(checklist(confirmed.pkg, 'pull_requests_merged_green')).toMatchObject({ passed: true, failingEntryIds: [] });
    expect(await verify(confirmed, '--require-platform-verified')).toMatchObject({
      code: 0,
      out: expect.stringMatching(/; code-hosting facts: verified by the platform with GitHub \(all 4\)$/),
    });
    // GitHub contradicting the webhook's merge: the pull request is contradicted and fails the checklists it fed.
    github.records.set('pulls/43', { ...(github.records.get('pulls/43') as object), merged: false, merged_at: null });
    const unmerged = await evidence(release.releaseId, stack.baseUrl);
    expect(checks(unmerged.pkg).pullRequests).toEqual([[43, 'organization', 'contradicted']]);
    expect(checklist(unmerged.pkg, 'pull_requests_merged_green')).toMatchObject({ passed: false, attestedBy: 'organization' });
    github.records.set('pulls/43', {
      ...(github.records.get('pulls/43') as object),
      merged: true,
      merged_at: '2026-11-20T10:00:00Z',
    });
  });

  it('GitHub down, hanging, or refusing the App: the evidence is still built, its facts organization-attested (unchecked)', async () => {
    const unchecked = {
      commits: [[COMMIT2, 'organization', 'unchecked']],
      pullRequests: [[43, 'organization', 'unchecked']],
      ciRuns: [
        ['check_run', '7001', 'organization', 'unchecked'],
        ['workflow_run', '9000002', 'organization', 'unchecked'],
      ],
    };
    const sorted = (pkg: Package) => {
      const got = checks(pkg);
      return { ...got, ciRuns: [...got.ciRuns].sort((a, b) => String(a[0]).localeCompare(String(b[0]))) };
    };
    github.mode = 'down';
    const down = await evidence(release.releaseId, stack.baseUrl);
    expect(sorted(down.pkg)).toEqual(unchecked);
    expect(checklist(down.pkg, 'pull_requests_merged_green')).toMatchObject({ passed: true, attestedBy: 'organization' });
    // No answer at all: the check gives up at its deadline (GITHUB_CHECK_TIMEOUT_MS) and the package is the same.
    github.mode = 'hang';
    const started = Date.now();
    const hanging = await evidence(release.releaseId, stack.baseUrl);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(hanging.bytes.equals(down.bytes)).toBe(true);
    // Hanging at the installation and its token (a service that has neither yet): the same deadline.
    const fresh = await evidenceWithApp({ appId: github.appId, privateKey: github.privateKey, apiUrl: github.url });
    try {
      const begun = Date.now();
      const unanswered = await evidence(release.releaseId, fresh.baseUrl);
      expect(Date.now() - begun).toBeLessThan(8000);
      expect(sorted(unanswered.pkg)).toEqual(unchecked);
    } finally {
      await fresh.stop();
    }
    github.mode = 'ok';
    // An App key GitHub does not know (a JWT signed by another key): refused, so nothing is confirmed.
    const other = await startFakeGithub();
    const impostor = await evidenceWithApp({ appId: github.appId, privateKey: other.privateKey, apiUrl: github.url });
    try {
      const refused = await evidence(release.releaseId, impostor.baseUrl);
      expect(sorted(refused.pkg)).toEqual(unchecked);
      expect(github.refusedJwts).toBeGreaterThan(0);
    } finally {
      await impostor.stop();
      await other.close();
    }
    // GitHub back: confirmed again.
    expect(checks((await evidence(release.releaseId, stack.baseUrl)).pkg).pullRequests).toEqual([[43, 'platform', 'confirmed']]);
  });
});
