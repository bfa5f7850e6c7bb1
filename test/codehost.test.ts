import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCatalogued } from './support/catalogue.ts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { sql } from './support/people.ts';
import { distArgs, run } from './support/processes.ts';
import { codehostSecret, githubExample, type Payload } from './support/github.ts';
import { createDb } from '@cluster/db';
import { CODEHOST_DELIVERY_KEEP_MS } from '../services/core/src/features/codehost/service.ts';
import { createCodeHostStore } from '../services/core/src/features/codehost/store.ts';

// Code-host ingestion end to end (docs/codehost.md): GitHub's own example payloads
// (@octokit/webhooks-examples), signed as GitHub signs them (@octokit/webhooks-methods), sent to
// the real gateway, verified and recorded by the core in Postgres, their events read back from
// Kafka, and the evidence package of a release showing what they linked.

const ROOT = path.resolve(import.meta.dirname, '..');
const REPO = 'Codertocat/Hello-World';

let c: TestCluster;
let a: SeededOrg;
let b: SeededOrg;
let secretA: string;
let secretB: string;
const entries: Record<string, { id: string; entryNumber: number }> = {};
/** The sha of the pushed commit that references entries (set by the first push). */
let commitSha: string;

interface HookOptions {
  secret?: string | null;
  deliveryId?: string;
  contentType?: string;
  raw?: string;
  signature?: string;
  event?: string | null;
}

/** POSTs a GitHub delivery to an organization's hook URL, signed with `secret` (default: the organization's). */
async function hook(org: SeededOrg, event: string, payload: unknown, opts: HookOptions = {}) {
  const body = opts.raw ?? JSON.stringify(payload);
  const secret = opts.secret === undefined ? (org === a ? secretA : secretB) : opts.secret;
  const headers: Record<string, string> = {
    'content-type': opts.contentType ?? 'application/json',
    'user-agent': 'GitHub-Hookshot/test',
    'x-github-delivery': opts.deliveryId ?? randomUUID(),
  };
  if (opts.event !== null) headers['x-github-event'] = opts.event ?? event;
  if (opts.signature !== undefined) headers['x-hub-signature-256'] = opts.signature;
  else if (secret) headers['x-hub-signature-256'] = await sign(secret, body);
  const res = await fetch(`${c.baseUrl.replace('/api/v1', '')}/hooks/github/${org.orgId}`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Payload };
}

let resent = 0;
/** Another delivery of the same payload: one field the core does not read differs, so the signed bytes do. */
const another = (payload: Payload): Payload => ({ ...payload, resent: ++resent });

async function entry(org: SeededOrg, title: string, fields: Record<string, unknown> = {}) {
  const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
    type: 'feature_request',
    title,
    description: 'd',
    ...fields,
  });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, entryNumber: res.body.entryNumber as number };
}

async function linkRepository(org: SeededOrg, repository = REPO) {
  const res = await c.api(org.key, 'POST', '/integration-links', {
    provider: 'github',
    externalType: 'repository',
    externalId: repository,
    alignEntityType: 'project',
    alignEntityId: org.projectId,
  });
  expect(res.status).toBe(201);
}

/** The code events of an entry once the topic is quiet, each checked against the event catalogue. */
async function codeEventsOf(entryId: string, names = ['commit.linked', 'pr.merged', 'pr.reopened', 'ci.run.attributed']) {
  const events = await c.events.settle((e) => e.entityId === entryId && names.includes(e.eventName), 600);
  for (const e of events) expectCatalogued(e);
  return events;
}
const deliveries = async (org: SeededOrg) =>
  Number((await sql(c, 'SELECT count(*)::int AS n FROM codehost_deliveries WHERE "organizationId" = $1', [org.orgId]))[0].n);

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  a = await c.seedOrg('Codehost A');
  b = await c.seedOrg('Codehost B');
  [secretA, secretB] = [await codehostSecret(c, a.orgId), await codehostSecret(c, b.orgId)];
  // Organization A: entries 1..4 of its project; its project owns the repository. B owns a repository
  // of the same name, and has an entry 1 of its own.
  entries.login = await entry(a, 'Login fails', { type: 'bug_report' });
  entries.export = await entry(a, 'Export');
  entries.search = await entry(a, 'Search');
  entries.idle = await entry(a, 'Untouched');
  entries.other = await entry(b, 'B entry');
  await linkRepository(a);
  await linkRepository(b, REPO.toLowerCase());
}, 120_000);
afterAll(async () => {
  await c?.stop();
});

describe('authenticating a delivery', () => {
  it('answers ping with pong, signed with the organization’s secret', async () => {
    const res = await hook(a, 'ping', githubExample('ping'));
    expect(res).toEqual({ status: 200, body: { outcome: 'pong', events: 0 } });
  });

  it('refuses a bad, a missing, and another organization’s signature with 401, storing nothing', async () => {
    const push = githubExample('push', (p) => p.commits.length === 1);
    push.commits[0].message = `E-${entries.login.entryNumber}`;
    const before = await deliveries(a);
    const cases: HookOptions[] = [
      { secret: 'not-the-secret' },
      { secret: null },
      { secret: secretB },
      { signature: 'sha256=' + '0'.repeat(64) },
      { signature: 'sha1=abc' },
    ];
    for (const opts of cases) {
      const res = await hook(a, 'push', push, opts);
      expect(res.status, JSON.stringify(opts)).toBe(401);
      expect(res.body).toMatchObject({ reason: 'unauthorized', message: expect.stringMatching(/X-Hub-Signature-256/) });
    }
    // One changed byte of a signed body.
    const body = JSON.stringify(push);
    const res = await hook(a, 'push', null, {
      raw: body.replace('Hello-World', 'Hello-Worle'),
      signature: await sign(secretA, body),
    });
    expect(res.status).toBe(401);
    expect(await deliveries(a)).toBe(before);
    expect(await codeEventsOf(entries.login.id)).toEqual([]);
  });

  it('refuses an organization without a secret, an unknown one and a malformed id alike (401)', async () => {
    const org = await c.seedOrg('No secret');
    for (const orgId of [org.orgId, randomUUID(), 'not-a-uuid']) {
      const res = await hook({ ...org, orgId }, 'ping', githubExample('ping'), { secret: secretA });
      expect(res.status, orgId).toBe(401);
    }
  });

  it('answers malformed input with a clear 4xx and stores nothing', async () => {
    const before = await deliveries(a);
    const notJson = await hook(a, 'push', null, { raw: '{"commits": [' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toMatch(/not valid JSON/);
    const unknownEvent = await hook(a, 'push', githubExample('push'), { event: 'no_such_event' });
    expect(unknownEvent.status).toBe(400);
    expect(unknownEvent.body.message).toMatch(/no_such_event/);
    const noEvent = await hook(a, 'push', githubExample('push'), { event: null });
    expect(noEvent.status).toBe(400);
    expect(noEvent.body.message).toMatch(/X-GitHub-Event/);
    const wrongShape = githubExample('push', (p) => p.commits.length === 1);
    wrongShape.commits[0].id = 42;
    const shape = await hook(a, 'push', wrongShape);
    expect(shape.status).toBe(400);
    expect(shape.body.details.errors).toEqual([{ path: '/commits/0/id', message: 'must be string' }]);
    const form = await hook(a, 'push', null, { raw: 'payload=%7B%7D', contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    const get = await fetch(`${c.baseUrl.replace('/api/v1', '')}/hooks/github/${a.orgId}`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(await deliveries(a)).toBe(before);
  });

  it('takes a signed payload with NUL characters without a 500, storing none', async () => {
    const push = githubExample('push', (p) => p.commits.length === 1);
    push.commits[0].id = 'f'.repeat(40);
    push.commits[0].message = 'nul \u0000 in a message, for no entry';
    push.repository.full_name = 'someone/else';
    expect((await hook(a, 'push', push)).status).toBe(202);
    const extra = await entry(a, 'NUL target');
    push.repository.full_name = REPO;
    push.commits[0].message = `nul \u0000 E-${extra.entryNumber} \u0000`;
    expect((await hook(a, 'push', push)).body).toEqual({ outcome: 'processed', events: 1 });
    const stored = await sql(c, 'SELECT message FROM code_commits WHERE sha = $1', ['f'.repeat(40)]);
    expect(stored).toEqual([{ message: `nul  E-${extra.entryNumber} ` }]);
  });

  it('acknowledges every other GitHub event with 202 ignored, and a repository linked to no project likewise', async () => {
    for (const name of ['star', 'issues', 'check_suite', 'workflow_job', 'release']) {
      const res = await hook(a, name, githubExample(name));
      expect(res.status, name).toBe(202);
      expect(res.body).toEqual({ outcome: 'ignored', reason: `the ${name} event is not used`, events: 0 });
    }
    const push = githubExample('push', (p) => p.commits.length === 1);
    push.repository.full_name = 'someone/else';
    const res = await hook(a, 'push', push);
    expect(res.status).toBe(202);
    expect(res.body.reason).toMatch(/someone\/else is not linked to a project/);
  });
});

describe('linking and attributing', () => {
  const prHead = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

  it('links a pushed commit to the entries its message references (E-<n>, any case, on word boundaries), once', async () => {
    const push = githubExample('push', (p) => p.commits.length === 1);
    commitSha = push.commits[0].id;
    push.commits[0].message = `Fix login (E-${entries.login.entryNumber}), see e-${entries.export.entryNumber}\n\nNot XE-${entries.search.entryNumber}, not E-${entries.search.entryNumber}0, not E-999`;
    const deliveryId = randomUUID();
    const res = await hook(a, 'push', push, { deliveryId });
    expect(res).toEqual({ status: 200, body: { outcome: 'processed', events: 2 } });
    const [linked] = await codeEventsOf(entries.login.id);
    expect(linked).toMatchObject({
      eventName: 'commit.linked',
      entityType: 'entry',
      entityId: entries.login.id,
      organizationId: a.orgId,
      projectId: a.projectId,
      actorUserId: null,
      payload: {
        entryId: entries.login.id,
        entryNumber: entries.login.entryNumber,
        provider: 'github',
        repository: REPO,
        source: 'commit',
        sha: commitSha,
        pullRequestNumber: null,
        title: `Fix login (E-${entries.login.entryNumber}), see e-${entries.export.entryNumber}`,
        url: push.commits[0].url,
      },
    });
    expect(await codeEventsOf(entries.export.id)).toHaveLength(1);
    expect(await codeEventsOf(entries.search.id)).toEqual([]);

    // A redelivery (same X-GitHub-Delivery) changes nothing, nor does the same signed body under a new id;
    // the same commit in another delivery links nothing new.
    expect((await hook(a, 'push', push, { deliveryId })).body).toEqual({ outcome: 'duplicate', events: 0 });
    expect((await hook(a, 'push', push)).body).toEqual({ outcome: 'duplicate', events: 0 });
    expect((await hook(a, 'push', another(push))).body).toEqual({ outcome: 'processed', events: 0 });
    expect(await codeEventsOf(entries.login.id)).toHaveLength(1);
    expect(await sql(c, 'SELECT count(*)::int AS n FROM codehost_deliveries WHERE "deliveryId" = $1', [deliveryId])).toEqual([
      { n: 1 },
    ]);
  });

  it('never touches another organization’s entries: B’s delivery for a repository of the same name links B’s entry only', async () => {
    const push = githubExample('push', (p) => p.commits.length === 1);
    push.commits[0].id = 'b'.repeat(40);
    push.commits[0].message = `E-${entries.other.entryNumber} from B`;
    const res = await hook(b, 'push', push);
    expect(res.body).toEqual({ outcome: 'processed', events: 1 });
    const [linked] = await codeEventsOf(entries.other.id);
    expect(linked).toMatchObject({ organizationId: b.orgId, payload: { entryId: entries.other.id } });
    // A's entry with the same number is untouched.
    expect(entries.other.entryNumber).toBe(entries.login.entryNumber);
    expect(await codeEventsOf(entries.login.id)).toHaveLength(1);
    // And A's secret does not open B's URL.
    expect((await hook(b, 'push', push, { secret: secretA })).status).toBe(401);
  });

  it('links a pull request by its title or body; merging it emits pr.merged once; a reopened one pr.reopened', async () => {
    const opened = githubExample('pull_request', (p) => p.action === 'opened');
    opened.pull_request.title = `Search speed-up`;
    opened.pull_request.body = `Implements E-${entries.search.entryNumber}.`;
    expect((await hook(a, 'pull_request', opened)).body).toEqual({ outcome: 'processed', events: 1 });
    const merged = githubExample('pull_request', (p) => p.action === 'closed');
    Object.assign(merged.pull_request, {
      title: opened.pull_request.title,
      body: opened.pull_request.body,
      merged: true,
      merged_at: '2026-11-20T10:00:00Z',
    });
    const deliveryId = randomUUID();
    expect((await hook(a, 'pull_request', merged, { deliveryId })).body).toEqual({ outcome: 'processed', events: 1 });
    expect((await hook(a, 'pull_request', merged, { deliveryId })).body.outcome).toBe('duplicate');
    // An older "opened" arriving late does not undo the merge, and another "closed" delivery emits nothing.
    expect((await hook(a, 'pull_request', another(opened))).body).toEqual({ outcome: 'processed', events: 0 });
    expect((await hook(a, 'pull_request', another(merged))).body).toEqual({ outcome: 'processed', events: 0 });
    const events = await codeEventsOf(entries.search.id);
    expect(events.map((e) => e.eventName)).toEqual(['commit.linked', 'pr.merged']);
    expect(events[0].payload).toMatchObject({
      source: 'pull_request',
      sha: null,
      pullRequestNumber: 2,
      title: 'Search speed-up',
    });
    expect(events[1].payload).toMatchObject({
      pullRequestNumber: 2,
      mergedAt: '2026-11-20T10:00:00.000Z',
      mergeCommitSha: merged.pull_request.merge_commit_sha,
    });

    const reopened = githubExample('pull_request', (p) => p.action === 'reopened');
    reopened.number = reopened.pull_request.number = 7;
    reopened.pull_request.title = `Export fixes E-${entries.export.entryNumber}`;
    reopened.pull_request.head.sha = 'c'.repeat(40);
    expect((await hook(a, 'pull_request', reopened)).body.events).toBe(2);
    expect((await codeEventsOf(entries.export.id)).map((e) => e.eventName)).toEqual([
      'commit.linked',
      'commit.linked',
      'pr.reopened',
    ]);
  });

  it('attributes a completed check run or workflow run on a linked commit to its entries, once per conclusion', async () => {
    const failed = githubExample('check_run', (p) => p.action === 'completed' && p.check_run.conclusion === 'failure');
    expect(failed.check_run.head_sha).toBe(prHead);
    expect((await hook(a, 'check_run', failed)).body.events).toBe(1);
    // Completed again later (GitHub's examples give both results one time): the newer result counts.
    const green = githubExample('check_run', (p) => p.action === 'completed' && p.check_run.conclusion === 'success');
    green.check_run.completed_at = '2019-05-15T15:25:00Z';
    expect((await hook(a, 'check_run', green)).body.events).toBe(1);
    expect((await hook(a, 'check_run', another(green))).body.events).toBe(0);
    // A late "created" (queued) delivery of the same run does not undo its completion.
    expect(
      (
        await hook(
          a,
          'check_run',
          githubExample('check_run', (p) => p.action === 'created'),
        )
      ).body.events,
    ).toBe(0);
    const workflow = githubExample('workflow_run', (p) => p.workflow_run.conclusion === 'success');
    workflow.repository.full_name = REPO;
    workflow.workflow_run.head_sha = commitSha;
    expect((await hook(a, 'workflow_run', workflow)).body.events).toBe(2);
    const search = (await codeEventsOf(entries.search.id, ['ci.run.attributed'])).map((e) => e.payload);
    expect(search).toMatchObject([
      { kind: 'check_run', runId: '128620228', name: 'Octocoders-linter', headSha: prHead, conclusion: 'failure' },
      { kind: 'check_run', runId: '128620228', conclusion: 'success', completedAt: '2019-05-15T15:25:00.000Z' },
    ]);
    const login = (await codeEventsOf(entries.login.id, ['ci.run.attributed'])).map((e) => e.payload);
    expect(login).toMatchObject([
      { kind: 'workflow_run', runId: String(workflow.workflow_run.id), headSha: commitSha, conclusion: 'success' },
    ]);
  });

  it('a successful deployment of a linked commit sets the entries’ deploymentStage, never backwards', async () => {
    const deploy = (environment: string, state = 'success') => {
      const p = githubExample('deployment_status', (x) => x.deployment_status.state === 'success');
      p.deployment.sha = commitSha;
      p.deployment_status.state = state;
      p.deployment_status.environment = environment;
      return p;
    };
    const stage = async () => (await c.api(a.key, 'GET', `/entries/${entries.login.id}`)).body.deploymentStage;
    expect(await stage()).toBeNull();
    expect((await hook(a, 'deployment_status', deploy('staging', 'in_progress'))).body.events).toBe(0);
    expect((await hook(a, 'deployment_status', deploy('review-app-42'))).status).toBe(200);
    expect(await stage()).toBe('testing');
    expect((await hook(a, 'deployment_status', deploy('Production'))).status).toBe(200);
    expect(await stage()).toBe('production');
    expect((await hook(a, 'deployment_status', deploy('staging'))).status).toBe(200);
    expect(await stage()).toBe('production');
    const updates = await c.events.settle((e) => e.entityId === entries.login.id && e.eventName === 'entry.updated', 600);
    expect(updates.map((e) => e.payload.changedFields)).toEqual([['deploymentStage'], ['deploymentStage']]);
    for (const e of updates) expectCatalogued(e);
    const audit = await c.api(a.key, 'GET', `/audit-events?entityType=entry&pageSize=100`);
    const stageAudits = (audit.body.data as Payload[]).filter(
      (x) => x.entityId === entries.login.id && x.metadata?.changedFields?.includes('deploymentStage'),
    );
    expect(stageAudits).toHaveLength(2);
    expect(stageAudits[0]).toMatchObject({ actorId: null, metadata: { actorType: 'codehost', event: 'deployment_status' } });
  });

  it('audits every processed delivery and every secret rotation', async () => {
    const audit = await c.api(a.key, 'GET', `/audit-events?entityType=codehost_delivery&pageSize=100`);
    expect(audit.status).toBe(200);
    expect(audit.body.data.length).toBeGreaterThan(5);
    expect(audit.body.data[0]).toMatchObject({
      action: 'received',
      actorId: null,
      metadata: { actorType: 'codehost', provider: 'github' },
    });
    const secrets = await c.api(a.key, 'GET', `/audit-events?entityType=codehost_secret`);
    expect(secrets.body.data).toMatchObject([{ action: 'created', entityId: 'github', metadata: { actorType: 'admin_cli' } }]);
  });
});

describe('the evidence package', () => {
  it('carries the linked commits, pull requests and CI runs, and its code checklists fail for the right entries', async () => {
    const release = await c.api(a.key, 'POST', `/projects/${a.projectId}/releases`, {
      name: 'R1',
      startDate: '2026-11-01',
      endDate: '2026-12-01',
    });
    for (const e of [entries.login, entries.export, entries.search, entries.idle]) {
      expect((await c.api(a.key, 'PATCH', `/entries/${e.id}`, { releaseId: release.body.id })).status).toBe(200);
    }
    const res = await c.api(a.key, 'GET', `/releases/${release.body.id}/evidence`);
    expect(res.status).toBe(200);
    const code = res.body.codeHosting as { commits: Payload[]; pullRequests: Payload[]; ciRuns: Payload[] };
    expect(code.commits).toEqual([
      expect.objectContaining({
        provider: 'github',
        repository: REPO,
        sha: commitSha,
        authorName: 'Codertocat',
        entryIds: [entries.login.id, entries.export.id].sort(),
      }),
    ]);
    expect(code.pullRequests.map((p) => [p.number, p.merged, p.state, p.entryIds])).toEqual([
      [2, true, 'closed', [entries.search.id]],
      [7, false, 'open', [entries.export.id]],
    ]);
    expect(code.ciRuns.map((r) => [r.kind, r.conclusion, r.entryIds])).toEqual([
      ['check_run', 'success', [entries.search.id]],
      ['workflow_run', 'success', [entries.login.id, entries.export.id].sort()],
    ]);
    const checks = Object.fromEntries((res.body.checklists as Payload[]).map((k) => [k.id, k.failingEntryIds]));
    // search: its merged pull request's merge commit counts as its linked commit; idle: nothing linked.
    expect(checks.entries_have_commits).toEqual([entries.idle.id]);
    // export's pull request is still open.
    expect(checks.pull_requests_merged_green).toEqual([entries.export.id]);
    // Nothing of B's is in A's package.
    expect(JSON.stringify(res.body)).not.toContain('b'.repeat(40));
  });
});

describe('delivery ids', () => {
  it('are forgotten after their keep (the core’s sweep), and only those', async () => {
    const old = randomUUID();
    const fresh = randomUUID();
    for (const id of [old, fresh])
      expect((await hook(a, 'push', another(githubExample('push')), { deliveryId: id })).status).toBe(200);
    await sql(c, `UPDATE codehost_deliveries SET "receivedAt" = now() - interval '31 days' WHERE "deliveryId" = $1`, [old]);
    const db = createDb(c.databaseUrl, { schema: 'core', poolMax: 1 });
    try {
      expect(await createCodeHostStore(db).pruneDeliveries(new Date(Date.now() - CODEHOST_DELIVERY_KEEP_MS))).toBe(1);
    } finally {
      await db.destroy();
    }
    const left = await sql(c, 'SELECT "deliveryId" FROM codehost_deliveries WHERE "deliveryId" = ANY($1)', [[old, fresh]]);
    expect(left.map((r) => r.deliveryId)).toEqual([fresh]);
  });
});

describe('the secret', () => {
  it('rotating it retires the old one at once', async () => {
    const org = await c.seedOrg('Rotating');
    const first = await codehostSecret(c, org.orgId);
    const second = await codehostSecret(c, org.orgId);
    expect(second).not.toBe(first);
    expect((await hook(org, 'ping', githubExample('ping'), { secret: first })).status).toBe(401);
    expect((await hook(org, 'ping', githubExample('ping'), { secret: second })).status).toBe(200);
    const audit = await c.api(org.key, 'GET', `/audit-events?entityType=codehost_secret`);
    expect((audit.body.data as Payload[]).map((x) => x.action).sort()).toEqual(['created', 'rotated']);
    const stored = await sql(c, 'SELECT "secretSealed" FROM codehost_secrets WHERE "organizationId" = $1', [org.orgId]);
    expect(stored[0].secretSealed).not.toContain(second);
  });

  it('the CLI names its mistakes', async () => {
    const fail = await run(
      process.execPath,
      [...distArgs('core', 'admin-cli'), 'codehost', 'secret', '--org', a.orgId, '--provider', 'gitlab'],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: c.databaseUrl } },
    ).catch((err: { code: number; stderr: string }) => err);
    expect(fail).toMatchObject({ code: 1, stderr: expect.stringMatching(/--provider: must be one of: github/) });
  });
});
