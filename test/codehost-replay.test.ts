import { createHash, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@cluster/db';
import { CODEHOST_DELIVERY_KEEP_MS } from '../services/core/src/features/codehost/service.ts';
import { createCodeHostStore } from '../services/core/src/features/codehost/store.ts';
import { HANDLED_EVENTS } from '../services/core/src/features/codehost/github.ts';
import { PAYLOAD_SCHEMAS } from '../services/core/src/features/codehost/payload-schema.ts';
import { expectCatalogued } from './support/catalogue.ts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { codehostSecret, githubExample, githubSignature, postHook, type Payload } from './support/github.ts';
import { hostileValue, mutatedJsonText, toJsonText } from './support/hostile-values.ts';
import { sql } from './support/people.ts';

// Replay-proof code-host ingestion (issue 30; docs/codehost.md, "Order and repeats"), against the
// real gateway, core, Postgres and Kafka, with GitHub's example payloads re-signed: a signed body
// re-sent under a new delivery id changes nothing; pull requests and CI runs move only forward by
// the payloads' own times; the signature covers the exact bytes; no signed payload, however hostile
// (fuzzed with fast-check), is answered 5xx.

const REPO = 'Codertocat/Hello-World';
const SEED = Number(process.env.FUZZ_SEED ?? 30);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);

let c: TestCluster;
let a: SeededOrg;
let secret: string;
const entries: Record<string, { id: string; entryNumber: number }> = {};
/** A pushed commit referencing entries.ci: CI runs on it are attributed to that entry. */
const CI_SHA = 'c1'.repeat(20);

/** Signs `payload` (or the exact `body`) with the organization's secret and POSTs it. */
async function deliver(event: string, payload: unknown, opts: { deliveryId?: string; body?: string | Uint8Array } = {}) {
  const body = opts.body ?? JSON.stringify(payload);
  const res = await postHook(c, a.orgId, event, body, { signature: githubSignature(secret, body), deliveryId: opts.deliveryId });
  return { status: res.status, body: JSON.parse(res.text) as Payload };
}

async function entry(title: string) {
  const res = await c.api(a.key, 'POST', `/projects/${a.projectId}/entries`, {
    type: 'feature_request',
    title,
    description: 'd',
  });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, entryNumber: res.body.entryNumber as number };
}

/** The code events of an entry once the topic is quiet, each checked against the event catalogue. */
async function codeEventsOf(entryId: string) {
  const names = ['commit.linked', 'pr.merged', 'pr.reopened', 'ci.run.attributed'];
  const events = await c.events.settle((e) => e.entityId === entryId && names.includes(e.eventName), 600);
  for (const e of events) expectCatalogued(e);
  return events;
}

/** Forgets the delivery of these bytes, as the sweep does once CODEHOST_DELIVERY_KEEP_MS has passed. */
async function forgetDelivery(body: string) {
  const digest = createHash('sha256').update(body).digest('hex');
  await sql(c, `UPDATE codehost_deliveries SET "receivedAt" = now() - interval '31 days' WHERE "bodyDigest" = $1`, [digest]);
  const db = createDb(c.databaseUrl, { schema: 'core', poolMax: 1 });
  try {
    expect(await createCodeHostStore(db).pruneDeliveries(new Date(Date.now() - CODEHOST_DELIVERY_KEEP_MS))).toBe(1);
  } finally {
    await db.destroy();
  }
}

/** The code-hosting evidence of a new release holding `entryIds`. */
async function evidenceOf(...entryIds: string[]) {
  const release = await c.api(a.key, 'POST', `/projects/${a.projectId}/releases`, {
    name: `R ${entryIds.join(' ')}`,
    startDate: '2026-11-01',
    endDate: '2026-12-01',
  });
  for (const id of entryIds)
    expect((await c.api(a.key, 'PATCH', `/entries/${id}`, { releaseId: release.body.id })).status).toBe(200);
  const res = await c.api(a.key, 'GET', `/releases/${release.body.id}/evidence`);
  expect(res.status).toBe(200);
  return res.body.codeHosting as { commits: Payload[]; pullRequests: Payload[]; ciRuns: Payload[] };
}

const deliveries = async () =>
  Number((await sql(c, 'SELECT count(*)::int AS n FROM codehost_deliveries WHERE "organizationId" = $1', [a.orgId]))[0].n);

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  a = await c.seedOrg('Codehost replay');
  secret = await codehostSecret(c, a.orgId);
  for (const name of ['reopen', 'ci', 'order', 'escapes', 'fuzz', 'late']) entries[name] = await entry(name);
  const link = await c.api(a.key, 'POST', '/integration-links', {
    provider: 'github',
    externalType: 'repository',
    externalId: REPO,
    alignEntityType: 'project',
    alignEntityId: a.projectId,
  });
  expect(link.status).toBe(201);
  const push = githubExample('push', (p) => p.commits.length === 1);
  Object.assign(push.commits[0], { id: CI_SHA, message: `CI target E-${entries.ci.entryNumber}` });
  expect((await deliver('push', push)).body).toMatchObject({ outcome: 'processed', events: 1 });
}, 120_000);
afterAll(async () => {
  await c?.stop();
});

describe('a replayed signed body', () => {
  it('under a new X-GitHub-Delivery id is a duplicate: nothing changes and nothing is emitted', async () => {
    const reopened = githubExample('pull_request', (p) => p.action === 'reopened');
    reopened.number = reopened.pull_request.number = 11;
    reopened.pull_request.title = `Reopen E-${entries.reopen.entryNumber}`;
    const body = JSON.stringify(reopened);
    expect((await deliver('pull_request', null, { body })).body).toEqual({ outcome: 'processed', events: 2 });
    const before = await deliveries();
    for (let i = 0; i < 3; i++) {
      expect((await deliver('pull_request', null, { body })).body).toEqual({ outcome: 'duplicate', events: 0 });
    }
    expect(await deliveries()).toBe(before);
    expect((await codeEventsOf(entries.reopen.id)).map((e) => e.eventName)).toEqual(['commit.linked', 'pr.reopened']);
  });

  it('an earlier "success" replayed after a later "failure" leaves the failure, in the record and in the evidence', async () => {
    const checkRun = (conclusion: string, completedAt: string) => {
      const p = githubExample('check_run', (x) => x.action === 'completed');
      Object.assign(p.check_run, { id: 501, head_sha: CI_SHA, conclusion, completed_at: completedAt });
      return JSON.stringify(p);
    };
    const success = checkRun('success', '2026-11-02T10:00:00Z');
    const failure = checkRun('failure', '2026-11-02T11:00:00Z');
    expect((await deliver('check_run', null, { body: success })).body.events).toBe(1);
    expect((await deliver('check_run', null, { body: failure })).body.events).toBe(1);
    // Within the delivery keep, the replay is a duplicate; once it is forgotten, the payload's own time refuses it.
    expect((await deliver('check_run', null, { body: success })).body.outcome).toBe('duplicate');
    await forgetDelivery(success);
    expect((await deliver('check_run', null, { body: success })).body).toEqual({ outcome: 'processed', events: 0 });

    // A workflow run: attempt 2 failed; attempt 1's success, even with a later time, is older.
    const workflow = (attempt: number, conclusion: string, updatedAt: string) => {
      const p = githubExample('workflow_run', (x) => x.workflow_run.conclusion === 'success');
      p.repository.full_name = REPO;
      Object.assign(p.workflow_run, { id: 502, head_sha: CI_SHA, run_attempt: attempt, conclusion, updated_at: updatedAt });
      return p;
    };
    expect((await deliver('workflow_run', workflow(2, 'failure', '2026-11-02T12:00:00Z'))).body.events).toBe(1);
    expect((await deliver('workflow_run', workflow(1, 'success', '2026-11-02T13:00:00Z'))).body.events).toBe(0);

    const attributed = (await codeEventsOf(entries.ci.id)).filter((e) => e.eventName === 'ci.run.attributed');
    expect(attributed.map((e) => [e.payload.runId, e.payload.conclusion])).toEqual([
      ['501', 'success'],
      ['501', 'failure'],
      ['502', 'failure'],
    ]);
    const stored = await sql(c, `SELECT "externalId", conclusion FROM code_ci_runs WHERE "headSha" = $1 ORDER BY "externalId"`, [
      CI_SHA,
    ]);
    expect(stored).toEqual([
      { externalId: '501', conclusion: 'failure' },
      { externalId: '502', conclusion: 'failure' },
    ]);
    const evidence = await evidenceOf(entries.ci.id);
    expect(evidence.ciRuns.map((r) => [r.externalId, r.conclusion])).toEqual([
      ['501', 'failure'],
      ['502', 'failure'],
    ]);
  });
});

describe('a delivery ignored because its repository was not linked', () => {
  it('is claimed: replayed once the repository is linked, it is a duplicate and changes nothing', async () => {
    const lateRepo = 'Codertocat/Linked-Later';
    const push = githubExample('push', (p) => p.commits.length === 1);
    push.repository.full_name = lateRepo;
    Object.assign(push.commits[0], { id: 'a7'.repeat(20), message: `Late E-${entries.late.entryNumber}` });
    const body = JSON.stringify(push);
    const deliveryId = randomUUID();
    const first = await deliver('push', null, { body, deliveryId });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ outcome: 'ignored', reason: expect.stringMatching(/Linked-Later is not linked/) });

    const link = await c.api(a.key, 'POST', '/integration-links', {
      provider: 'github',
      externalType: 'repository',
      externalId: lateRepo,
      alignEntityType: 'project',
      alignEntityId: a.projectId,
    });
    expect(link.status).toBe(201);
    // GitHub's "Redeliver" (the same id and body), and the same signed body under a new id.
    expect(await deliver('push', null, { body, deliveryId })).toEqual({ status: 200, body: { outcome: 'duplicate', events: 0 } });
    expect((await deliver('push', null, { body })).body).toEqual({ outcome: 'duplicate', events: 0 });
    expect(await sql(c, 'SELECT sha FROM code_commits WHERE sha = $1', ['a7'.repeat(20)])).toEqual([]);
    expect((await evidenceOf(entries.late.id)).commits).toEqual([]);

    // The link itself works: a new push from the repository is processed.
    push.commits[0].id = 'a8'.repeat(20);
    expect((await deliver('push', push)).body).toEqual({ outcome: 'processed', events: 1 });
    expect((await codeEventsOf(entries.late.id)).map((e) => e.payload.sha)).toEqual(['a8'.repeat(20)]);
  });
});

describe('pull request deliveries out of order', () => {
  it('leave the newest state, and an older one emits nothing', async () => {
    const pr = (action: string, state: string, updatedAt: string) => {
      const p = githubExample('pull_request', (x) => x.action === action);
      p.number = p.pull_request.number = 12;
      Object.assign(p.pull_request, { state, updated_at: updatedAt, title: `Order E-${entries.order.entryNumber}` });
      return p;
    };
    expect((await deliver('pull_request', pr('closed', 'closed', '2026-11-03T12:00:00Z'))).body.events).toBe(1);
    expect((await deliver('pull_request', pr('reopened', 'open', '2026-11-03T11:00:00Z'))).body).toEqual({
      outcome: 'processed',
      events: 0,
    });
    expect((await deliver('pull_request', pr('opened', 'open', '2026-11-03T10:00:00Z'))).body.events).toBe(0);
    expect((await evidenceOf(entries.order.id)).pullRequests.map((p) => [p.number, p.state])).toEqual([[12, 'closed']]);
    expect((await codeEventsOf(entries.order.id)).map((e) => e.eventName)).toEqual(['commit.linked']);
    // A newer reopen counts.
    expect((await deliver('pull_request', pr('reopened', 'open', '2026-11-03T13:00:00Z'))).body.events).toBe(1);
    const state = await sql(c, `SELECT state FROM code_pull_requests WHERE "organizationId" = $1 AND number = 12`, [a.orgId]);
    expect(state).toEqual([{ state: 'open' }]);
  });
});

describe('the signature covers the exact bytes', () => {
  it('bytes that are not UTF-8 verify only when signed as they are (then 400), not as a decoder reads them', async () => {
    const bytes = Buffer.concat([Buffer.from('{"zen":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    const asText = Buffer.from(bytes.toString('utf8'));
    expect(asText.equals(bytes)).toBe(false);
    const decoded = await postHook(c, a.orgId, 'ping', bytes, { signature: githubSignature(secret, asText) });
    expect(decoded.status).toBe(401);
    const exact = await postHook(c, a.orgId, 'ping', bytes, { signature: githubSignature(secret, bytes) });
    expect(exact.status).toBe(400);
    expect(JSON.parse(exact.text)).toMatchObject({
      reason: 'validation_error',
      details: { errors: [{ message: 'is not UTF-8' }] },
    });
  });

  it('a byte-order mark is part of what is signed', async () => {
    const json = Buffer.from(JSON.stringify(githubExample('ping')));
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]);
    expect((await postHook(c, a.orgId, 'ping', bytes, { signature: githubSignature(secret, json) })).status).toBe(401);
    const res = await postHook(c, a.orgId, 'ping', bytes, { signature: githubSignature(secret, bytes) });
    expect(res).toEqual({ status: 200, text: JSON.stringify({ outcome: 'pong', events: 0 }) });
  });

  it('JSON escapes are read as written, and a signature over the re-serialised JSON does not verify', async () => {
    const push = githubExample('push', (p) => p.commits.length === 1);
    Object.assign(push.commits[0], { id: 'e5'.repeat(20), message: '@MESSAGE@' });
    // "\u0045\u002d<n>" is E-<n>; "\/" and a surrogate pair written as escapes.
    const message = `Escaped \\u0045\\u002d${entries.escapes.entryNumber} \\/ \\ud83d\\ude00`;
    const body = JSON.stringify(push).replace('@MESSAGE@', message);
    expect(body).toContain('\\u002d');
    const canonical = JSON.stringify(JSON.parse(body));
    expect(canonical).not.toBe(body);
    expect((await postHook(c, a.orgId, 'push', body, { signature: githubSignature(secret, canonical) })).status).toBe(401);
    expect((await deliver('push', null, { body })).body).toEqual({ outcome: 'processed', events: 1 });
    const stored = await sql(c, 'SELECT message FROM code_commits WHERE sha = $1', ['e5'.repeat(20)]);
    expect(stored).toEqual([{ message: `Escaped E-${entries.escapes.entryNumber} / 😀` }]);
  });
});

describe('signed but hostile payloads', () => {
  const pr = (change: (p: Payload) => void) => {
    const p = githubExample('pull_request', (x) => x.action === 'opened');
    change(p);
    return JSON.stringify(p);
  };
  const checkRun = (change: (p: Payload) => void) => {
    const p = githubExample('check_run', (x) => x.action === 'completed');
    change(p);
    return JSON.stringify(p);
  };
  const cases: [string, string, string, string][] = [
    ['pull_request', 'a number past int4', pr((p) => (p.pull_request.number = 2 ** 31)), '/pull_request/number'],
    [
      'check_run',
      'an id past 64 bits',
      checkRun((p) => (p.check_run.id = 123454321)).replace('"id":123454321', '"id":18446744073709551616'),
      '/check_run/id',
    ],
    ['check_run', 'an id past safe integers', checkRun((p) => (p.check_run.id = 2 ** 53 + 2)), '/check_run/id'],
    ['pull_request', 'year 0', pr((p) => (p.pull_request.updated_at = '0000-01-01T00:00:00Z')), '/pull_request/updated_at'],
    [
      'pull_request',
      'year +275760',
      pr((p) => (p.pull_request.updated_at = '+275760-09-13T00:00:00Z')),
      '/pull_request/updated_at',
    ],
    [
      'pull_request',
      'year -271821',
      pr((p) => (p.pull_request.merged_at = '-271821-04-20T00:00:00Z')),
      '/pull_request/merged_at',
    ],
    ['check_run', 'an unparseable date', checkRun((p) => (p.check_run.completed_at = 'yesterday')), '/check_run/completed_at'],
    ['check_run', 'a 6,000-character sha', checkRun((p) => (p.check_run.head_sha = 'a'.repeat(6000))), '/check_run/head_sha'],
    ['pull_request', 'a wrong type', pr((p) => (p.pull_request.state = 1)), '/pull_request/state'],
    ['pull_request', 'a missing field', pr((p) => delete p.pull_request.updated_at), '/pull_request/updated_at'],
    [
      'pull_request',
      'a repository of 6,000 characters',
      pr((p) => (p.repository.full_name = `o/${'r'.repeat(6000)}`)),
      '/repository/full_name',
    ],
    ['push', 'a payload that is an array', '[]', ''],
    [
      'push',
      'nesting 10,000 deep',
      `{"repository":{"full_name":"${REPO}"},"commits":[],"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
      '',
    ],
  ];

  it.each(cases)('%s with %s is a 400 naming the field, and stores nothing', async (event, _name, body, path) => {
    const before = await deliveries();
    const res = await deliver(event, null, { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'validation_error', message: expect.any(String) });
    expect((res.body.details.errors as { path: string }[]).map((e) => e.path)).toContain(path);
    expect(await deliveries()).toBe(before);
  });
});

/** Every place of a payload the core reads (a path of property names; 0 for an array's items), from its schema. */
function readPaths(schema: Payload, path: (string | number)[] = []): (string | number)[][] {
  const below = Object.entries((schema.properties ?? {}) as Record<string, Payload>).flatMap(([k, s]) =>
    readPaths(s, [...path, k]),
  );
  const items = schema.items ? readPaths(schema.items as Payload, [...path, 0]) : [];
  return [path, ...below, ...items];
}

/** `payload` with the value at `path` replaced (objects and arrays on the way created as needed). */
function placed(payload: Payload, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  let at: Payload = payload;
  for (const key of path.slice(0, -1)) {
    if (typeof at[key] !== 'object' || at[key] === null) at[key] = typeof key === 'number' ? [] : {};
    at = at[key] as Payload;
  }
  at[path[path.length - 1]] = value;
  return payload;
}

/** GitHub's examples of an event, made to reach the core's writes: the linked repository, entry references, a linked sha. */
function baseExamples(event: (typeof HANDLED_EVENTS)[number]): Payload[] {
  const ref = `E-${entries.fuzz.entryNumber}`;
  return [githubExample(event)].map((p) => {
    p.repository.full_name = REPO;
    if (event === 'push') for (const commit of p.commits as Payload[]) commit.message = `${ref} ${commit.message}`;
    if (event === 'pull_request') p.pull_request.body = ref;
    if (event === 'check_run' || event === 'workflow_run') p[event].head_sha = CI_SHA;
    if (event === 'deployment_status') p.deployment.sha = CI_SHA;
    return p;
  });
}

describe(`fuzz: signed payloads never answer 5xx (${RUNS} cases per event from seed ${SEED})`, () => {
  const statuses: number[] = [];
  for (const [i, event] of HANDLED_EVENTS.entries()) {
    it(`${event}`, async () => {
      const base = fc.constantFrom(...baseExamples(event));
      // Hostile values at the places the core reads (from its own schema), or anywhere (mutatedJsonText), or random JSON.
      const targeted = fc
        .tuple(base, fc.constantFrom(...readPaths(PAYLOAD_SCHEMAS[event])), hostileValue)
        .map(([p, path, value]) => toJsonText(placed(structuredClone(p), path, value)));
      const body = fc.oneof(
        { weight: 4, arbitrary: targeted },
        { weight: 3, arbitrary: mutatedJsonText(base) },
        { weight: 1, arbitrary: fc.json() },
      );
      const property = fc.asyncProperty(body, async (text) => {
        const res = await postHook(c, a.orgId, event, text, { signature: githubSignature(secret, text) });
        statuses.push(res.status);
        const where = `${event} answered ${res.status} ${res.text.slice(0, 300)} to ${text.slice(0, 400)}`;
        expect(res.status, where).toBeLessThan(500);
        const answer = JSON.parse(res.text) as Payload;
        if (res.status >= 400) expect(answer, where).toMatchObject({ reason: expect.any(String), message: expect.any(String) });
        else expect(answer.outcome, where).toMatch(/^(processed|duplicate|ignored)$/);
      });
      await fc.assert(property, { seed: SEED + i, numRuns: RUNS });
    }, 120_000);
  }

  it('reached the writes: some answers were 200 and some 400', () => {
    expect(statuses).toContain(200);
    expect(statuses).toContain(400);
  });
});
