import { execFile } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import canonicalize from 'canonicalize';
import { EvidencePackage } from '@cluster/contracts';
import { DEV_EVIDENCE_SIGNING_SEED } from '@cluster/evidence';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEvidenceBeside, startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { distArgs } from './support/processes.ts';
import { runVerifier } from './support/verify-evidence.ts';

// A release's evidence package as an auditor gets it: built by the evidence service from the
// core's facts, canonical JSON, signed with the organization's evidence key, and checked with the
// documented verifier (scripts/verify-evidence.mjs).
const ROOT = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let releaseId: string;
/** The published platform keys, saved from /.well-known/evidence-keys.json. */
let publishedKeys: string;
const entries: Record<string, string> = {};
const work = mkdtempSync(path.join(tmpdir(), 'evidence-'));

type Package = {
  schemaVersion: number;
  generatedAt: string;
  organizationId: string;
  release: { id: string; name: string };
  entrySummary: {
    entries: Record<string, unknown>[];
    total: number;
    countsByStatus: Record<string, number>;
    countsByType: Record<string, number>;
  };
  sequence: number;
  previousSha256: string | null;
  approvalChain: Record<string, unknown>[];
  checklists: { id: string; passed: boolean; failingEntryIds: string[] }[];
  codeHosting: Record<string, unknown[]>;
  sha256: string;
};

/** GET the evidence as raw bytes, with its headers. */
async function evidence(key: string, id = releaseId, query = '') {
  const res = await fetch(`${c.baseUrl}/releases/${id}/evidence${query}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function rotate(orgId: string): Promise<{ key: string; prefix: string }> {
  const { stdout } = await run(
    process.execPath,
    [...distArgs('evidence', 'admin-cli'), 'evidence-key', 'rotate', '--org', orgId],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: c.databaseUrl, CORE_URL: `http://127.0.0.1:${c.ports.core}`, LOG_LEVEL: 'silent' },
    },
  );
  return JSON.parse(stdout) as { key: string; prefix: string };
}

/** A file of `work` holding `content`. */
function saved(name: string, content: Buffer | string): string {
  const file = path.join(work, `${Math.random().toString(36).slice(2)}-${name}`);
  writeFileSync(file, content);
  return file;
}

/** The response headers as `curl -D` saves them. */
function headersFile(headers: Headers): string {
  const lines = [...headers.entries()].map(([k, v]) => `${k}: ${v}`);
  return saved('headers.txt', ['HTTP/1.1 200 OK', ...lines, '', ''].join('\r\n'));
}

/**
 * The documented verifier on `bytes`; its output and exit code. The test cluster signs with the
 * development evidence key (EVIDENCE_SIGNING_KEY unset), which the verifier accepts only when told.
 */
async function verify(bytes: Buffer, args: string[], { development = true } = {}): Promise<{ code: number; out: string }> {
  if (development) args = [...args, '--allow-development-key'];
  const { code, stdout } = await runVerifier(args, saved('pkg.json', bytes));
  return { code, out: stdout };
}

beforeAll(async () => {
  c = await startTestCluster();
  const keys = await fetch(`${c.baseUrl.replace('/api/v1', '')}/.well-known/evidence-keys.json`);
  publishedKeys = saved('keys.json', Buffer.from(await keys.arrayBuffer()));
  org = await c.seedOrg('Audited');
  other = await c.seedOrg('Other');
  const release = await c.api(org.key, 'POST', `/projects/${org.projectId}/releases`, {
    name: 'Spring',
    startDate: '2026-12-01',
    endDate: '2026-12-31',
  });
  releaseId = release.body.id as string;
  const make = async (name: string, body: Record<string, unknown>) => {
    const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      description: name,
      releaseId,
      ...body,
      title: name,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    entries[name] = res.body.id as string;
  };
  await make('done feature', { type: 'feature_request', status: 'solved' });
  await make('complete bug', {
    type: 'bug_report',
    status: 'deployed',
    stepsToReproduce: 'click',
    expectedBehavior: 'works',
    actualBehavior: 'fails',
  });
  await make('vague bug', { type: 'bug_report', status: 'in_progress' });
  // Not in the release: never in its evidence.
  await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { title: 'elsewhere', description: '-', type: 'feedback' });
  for (const name of ['done feature', 'complete bug'])
    expect((await c.api(org.key, 'PATCH', `/entries/${entries[name]}`, { approvalStatus: 'approved' })).status).toBe(200);
  await c.api(org.key, 'PATCH', `/entries/${entries['vague bug']}`, { approvalStatus: 'rejected' });
}, 120_000);
afterAll(async () => {
  await c?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('release evidence', () => {
  it('holds the release, every entry, counts, the approval chain and the checklists, canonical and digested', async () => {
    const res = await evidence(org.key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-evidence-signature')).toBeNull();
    const text = res.bytes.toString('utf8');
    const pkg = JSON.parse(text) as Package;
    expect(canonicalize(pkg)).toBe(text);
    const { sha256, ...content } = pkg;
    expect(sha256).toBe(createHash('sha256').update(canonicalize(content)!).digest('hex'));

    expect(pkg).toMatchObject({
      schemaVersion: 2,
      organizationId: org.orgId,
      release: { id: releaseId, name: 'Spring' },
      sequence: 1,
      previousSha256: null,
    });
    // Signed by the platform even without an organization key, and verifiable offline with the published key alone.
    expect(res.headers.get('x-service-evidence-platform-signature')).toMatch(/^ed25519=[A-Za-z0-9_-]{86}$/);
    const kid = res.headers.get('x-service-evidence-platform-key-id');
    expect(await verify(res.bytes, ['--keys', publishedKeys, '--headers', headersFile(res.headers)])).toEqual({
      code: 0,
      out: `valid: platform signature (key ${kid}, the development key: a local cluster only), package 1 (no earlier package given); code-hosting facts: none`,
    });
    // Without the flag, the development key (its seed is public) proves nothing: invalid.
    expect(
      await verify(res.bytes, ['--keys', publishedKeys, '--headers', headersFile(res.headers)], { development: false }),
    ).toEqual({
      code: 1,
      out: `invalid: signed by platform key ${kid}, the development evidence key, whose private half anyone can make: the signature proves nothing (--allow-development-key for a local cluster)`,
    });
    // The same facts, the same package: nothing new is issued, however many ask at once.
    const again = await Promise.all(Array.from({ length: 5 }, () => evidence(org.key)));
    expect(again.map((r) => [r.status, r.bytes.equals(res.bytes)])).toEqual(Array(5).fill([200, true]));
    // The documented JSON Schema (docs/evidence.schema.json, current) describes it.
    const validate = addFormats(new Ajv({ allErrors: true, strict: false })).compile(EvidencePackage);
    expect(validate(pkg), JSON.stringify(validate.errors)).toBe(true);
    const documented = JSON.parse(readFileSync(path.join(ROOT, 'docs/evidence.schema.json'), 'utf8')) as Record<string, unknown>;
    const { $schema, $id, title, ...documentedSchema } = documented;
    expect([$schema, $id, title]).toEqual([
      'https://json-schema.org/draft/2020-12/schema',
      'evidence.schema.json',
      'EvidencePackage',
    ]);
    expect(documentedSchema).toEqual(JSON.parse(JSON.stringify(EvidencePackage)));
    expect(Date.parse(pkg.generatedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(pkg.entrySummary.total).toBe(3);
    expect(pkg.entrySummary.entries.map((e) => e.title)).toEqual(['done feature', 'complete bug', 'vague bug']);
    expect(pkg.entrySummary.entries[1]).toEqual({
      id: entries['complete bug'],
      entryNumber: expect.any(Number),
      type: 'bug_report',
      title: 'complete bug',
      status: 'deployed',
      priority: expect.any(String),
      approvalStatus: 'approved',
      costApprovalStatus: null,
      deploymentStage: null,
    });
    expect(pkg.entrySummary.countsByStatus).toEqual({ solved: 1, deployed: 1, in_progress: 1 });
    expect(pkg.entrySummary.countsByType).toEqual({ feature_request: 1, bug_report: 2 });

    expect(pkg.approvalChain.map((a) => [a.entryId, a.field, a.from, a.to])).toEqual([
      [entries['done feature'], 'approvalStatus', null, 'approved'],
      [entries['complete bug'], 'approvalStatus', null, 'approved'],
      [entries['vague bug'], 'approvalStatus', null, 'rejected'],
    ]);
    for (const a of pkg.approvalChain)
      expect(a).toMatchObject({ actorId: org.adminId, apiKeyId: org.keyId, action: 'approvalStatus_changed' });

    const checklist = Object.fromEntries(pkg.checklists.map((k) => [k.id, k]));
    expect(checklist.entries_done).toEqual({
      id: 'entries_done',
      title: expect.any(String),
      passed: false,
      failingEntryIds: [entries['vague bug']],
      attestedBy: 'platform',
    });
    expect(checklist.bug_reports_complete).toMatchObject({ passed: false, failingEntryIds: [entries['vague bug']] });
    expect(checklist.entries_approved).toMatchObject({ passed: false, failingEntryIds: [entries['vague bug']] });
  });

  it('passes a checklist once its entries do', async () => {
    await c.api(org.key, 'PATCH', `/entries/${entries['vague bug']}`, {
      status: 'solved',
      approvalStatus: 'approved',
      stepsToReproduce: 'open the page',
      expectedBehavior: 'it loads',
      actualBehavior: 'it spins',
    });
    // Changed facts and requests at once: one new package, not a fork of the chain.
    const [res, ...others] = await Promise.all(Array.from({ length: 4 }, () => evidence(org.key)));
    expect(others.every((r) => r.bytes.equals(res.bytes))).toBe(true);
    const pkg = JSON.parse(res.bytes.toString('utf8')) as Package;
    // Changed facts: a new package, chained to the first by the digest of its exact bytes.
    const earlier = await evidence(org.key, releaseId, '?sequence=1');
    expect(earlier.status).toBe(200);
    expect(pkg).toMatchObject({ sequence: 2, previousSha256: createHash('sha256').update(earlier.bytes).digest('hex') });
    expect(
      await verify(res.bytes, [
        '--keys',
        publishedKeys,
        '--headers',
        headersFile(res.headers),
        '--previous',
        saved('earlier.json', earlier.bytes),
      ]),
    ).toMatchObject({ code: 0, out: expect.stringContaining('chain of packages 1 to 2') });
    expect((await evidence(org.key, releaseId, '?sequence=9')).status).toBe(404);
    expect((await evidence(org.key, releaseId, '?sequence=0')).status).toBe(400);
    expect((await evidence(other.key, releaseId, '?sequence=1')).status).toBe(404);
    // No code host is connected here (test/codehost.test.ts covers the code checklists): no entry has a
    // linked commit, and there is no pull request to fail the last one.
    const everyEntry = pkg.entrySummary.entries.map((e) => e.id as string).sort();
    expect(pkg.checklists.map((k) => [k.id, k.passed, [...k.failingEntryIds].sort()])).toEqual([
      ['entries_done', true, []],
      ['bug_reports_complete', true, []],
      ['entries_approved', true, []],
      ['entries_have_commits', false, everyEntry],
      ['pull_requests_merged_green', true, []],
    ]);
    expect(pkg.codeHosting).toEqual({ commits: [], pullRequests: [], ciRuns: [] });
    expect(pkg.approvalChain.at(-1)).toMatchObject({ entryId: entries['vague bug'], from: 'rejected', to: 'approved' });
  });

  it('is signed over its exact bytes by the organization once it has a key; rotation retires the old key', async () => {
    const first = await rotate(org.orgId);
    expect(first.key).toMatch(/^fbe_/);
    // The prefix shown is derived from a hash of the key, never the key's own characters.
    expect(first.prefix).toBe(`fbe_${createHash('sha256').update(first.key).digest('hex').slice(0, 12)}`);
    expect(first.key.startsWith(first.prefix)).toBe(false);
    const res = await evidence(org.key);
    const signature = res.headers.get('x-service-evidence-signature')!;
    expect(signature).toBe(`sha256=${createHmac('sha256', first.key).update(res.bytes).digest('hex')}`);
    expect(res.headers.get('x-service-evidence-key-prefix')).toBe(first.prefix);

    const headers = headersFile(res.headers);
    expect(await verify(res.bytes, ['--keys', publishedKeys, '--headers', headers, '--key', first.key])).toMatchObject({
      code: 0,
      out: expect.stringContaining('evidence key signature'),
    });
    // The keys straight from the well-known URL do as well as a saved copy.
    const url = `${c.baseUrl.replace('/api/v1', '')}/.well-known/evidence-keys.json`;
    expect((await verify(res.bytes, ['--keys', url, '--headers', headers])).code).toBe(0);
    // Re-serialised (pretty-printed) evidence is refused: only the signed bytes verify.
    const pretty = Buffer.from(JSON.stringify(JSON.parse(res.bytes.toString('utf8')), null, 2));
    expect((await verify(pretty, ['--keys', publishedKeys, '--headers', headers])).out).toMatch(/not in RFC 8785 canonical form/);
    // A tenant who rewrites a package and signs it with its own key still fails the platform signature.
    const forged = Buffer.from(res.bytes.toString('utf8').replace('"Spring"', '"Sprint"'));
    const { sha256: _, ...content } = JSON.parse(forged.toString('utf8')) as Record<string, unknown>;
    const resealed = Buffer.from(
      canonicalize({ ...content, sha256: createHash('sha256').update(canonicalize(content)!).digest('hex') })!,
    );
    const tenantSignature = `sha256=${createHmac('sha256', first.key).update(resealed).digest('hex')}`;
    expect(
      await verify(resealed, ['--keys', publishedKeys, '--headers', headers, '--signature', tenantSignature, '--key', first.key]),
    ).toEqual({ code: 1, out: 'invalid: the platform signature does not match (changed bytes, or another key)' });
    expect((await verify(res.bytes, ['--keys', publishedKeys, '--headers', headers, '--key', 'fbe_wrong'])).code).toBe(1);

    const second = await rotate(org.orgId);
    expect(second.prefix).not.toBe(first.prefix);
    const after = await evidence(org.key);
    expect(after.headers.get('x-service-evidence-key-prefix')).toBe(second.prefix);
    const afterHeaders = headersFile(after.headers);
    expect((await verify(after.bytes, ['--keys', publishedKeys, '--headers', afterHeaders, '--key', first.key])).code).toBe(1);
    expect((await verify(after.bytes, ['--keys', publishedKeys, '--headers', afterHeaders, '--key', second.key])).code).toBe(0);
  });

  it('publishes the platform keys without authentication; a rotation of EVIDENCE_SIGNING_KEY keeps old packages verifiable', async () => {
    const root = c.baseUrl.replace('/api/v1', '');
    const res = await fetch(`${root}/.well-known/evidence-keys.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const doc = (await res.json()) as { keys: { kid: string; x: string }[] };
    expect(doc.keys).toEqual([
      { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String), x: expect.any(String) },
    ]);
    expect(doc.keys[0].kid).toBe(
      createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${doc.keys[0].x}"}`).digest('base64url'),
    );
    expect((await fetch(`${root}/.well-known/evidence-keys.json`, { method: 'POST' })).status).toBe(405);
    const before = await evidence(org.key);

    // A second evidence service and gateway on the same database, configured as after a rotation: NEW,OLD.
    const rotated = randomBytes(32);
    const beside = await startEvidenceBeside(c, { signingSeeds: [rotated, DEV_EVIDENCE_SIGNING_SEED] });
    try {
      const rotatedRoot = beside.root;
      const rotatedDoc = (await (await fetch(`${rotatedRoot}/.well-known/evidence-keys.json`)).json()) as typeof doc;
      expect(rotatedDoc.keys.map((k) => k.kid)).toEqual([expect.any(String), doc.keys[0].kid]);
      // The old key is published as retired: it verifies what it signed, and signs nothing now.
      expect(rotatedDoc.keys[1]).toEqual({ ...doc.keys[0], retired: true });
      expect(rotatedDoc.keys[0]).not.toHaveProperty('retired');
      const rotatedKeys = saved('keys.json', JSON.stringify(rotatedDoc));
      // The package saved before the rotation verifies against the keys published after it.
      expect((await verify(before.bytes, ['--keys', rotatedKeys, '--headers', headersFile(before.headers)])).code).toBe(0);
      // The same package served now is signed with the new key; the old published keys alone do not know it.
      const now = await fetch(`${rotatedRoot}/api/v1/releases/${releaseId}/evidence`, {
        headers: { authorization: `Bearer ${org.key}` },
      });
      const bytes = Buffer.from(await now.arrayBuffer());
      expect(bytes.equals(before.bytes)).toBe(true);
      expect(now.headers.get('x-service-evidence-platform-key-id')).toBe(rotatedDoc.keys[0].kid);
      expect((await verify(bytes, ['--keys', rotatedKeys, '--headers', headersFile(now.headers)])).code).toBe(0);
      expect((await verify(bytes, ['--keys', publishedKeys, '--headers', headersFile(now.headers)])).out).toMatch(
        /which the published keys do not list/,
      );
    } finally {
      await beside.stop();
    }
  });

  it('lets an admin with a settings session see and rotate the key; no session 401, an API key alone 401, a non-admin 403', async () => {
    const settings = (method: string, headers: Record<string, string> = {}) =>
      fetch(`${c.baseUrl.replace('/api/v1', '')}/api/settings/evidence-key`, { method, headers });
    expect((await settings('GET')).status).toBe(401);
    const keyOnly = await settings('POST', { authorization: `Bearer ${org.key}` });
    expect(keyOnly.status).toBe(401);
    expect((await keyOnly.json()).reason).toBe('unauthorized');
    expect((await settings('GET', { cookie: 'session=not-a-session' })).status).toBe(401);
    const { id: devId } = await c.admin.createUser(org.orgId, `dev-${Date.now()}@example.test`, 'Dev', 'developer');
    const devSession = await c.admin.createSession(devId);
    const denied = await settings('POST', { cookie: `session=${devSession.token}` });
    expect(denied.status).toBe(403);
    expect((await denied.json()).reason).toBe('forbidden');

    const { token } = await c.admin.createSession(org.adminId);
    const cookie = { cookie: `session=${token}` };
    const before = await (await settings('GET', cookie)).json();
    const rotated = await settings('POST', cookie);
    expect(rotated.status).toBe(201);
    const { key, prefix } = (await rotated.json()) as { key: string; prefix: string };
    expect(prefix).toBe(`fbe_${createHash('sha256').update(key).digest('hex').slice(0, 12)}`);
    expect(await (await settings('GET', cookie)).json()).toEqual({ exists: true, prefix });
    expect(before.prefix).not.toBe(prefix);
    expect((await settings('POST', { ...cookie, origin: 'https://evil.example' })).status).toBe(403);

    // Rotations at the same moment take turns: each answers its own key, and the last one is current.
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => settings('POST', cookie)));
    expect(concurrent.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const prefixes = await Promise.all(concurrent.map(async (r) => ((await r.json()) as { prefix: string }).prefix));
    expect(new Set(prefixes).size).toBe(5);
    const current = (await (await settings('GET', cookie)).json()) as { prefix: string };
    expect(prefixes).toContain(current.prefix);
    const last = (await (await settings('POST', cookie)).json()) as { key: string; prefix: string };

    expect(last.key).not.toBe(key);
    const signed = await evidence(org.key);
    expect(signed.headers.get('x-service-evidence-signature')).toBe(
      `sha256=${createHmac('sha256', last.key).update(signed.bytes).digest('hex')}`,
    );
    const audit = await c.api(org.key, 'GET', '/audit-events?entityType=evidence_key&pageSize=100');
    const all = audit.body.data as { action: string; actorId: string; metadata: Record<string, unknown> }[];
    // The CLI's rotations (the signing test's two, before these) are the operator's; these, the session user's.
    expect(all.filter((r) => r.metadata.actorType === 'admin_cli')).toMatchObject([
      { action: 'rotated', actorId: null },
      { action: 'created', actorId: null },
    ]);
    const rows = all.filter((r) => r.metadata.actorType === 'session');
    expect(rows).toHaveLength(7);
    expect(rows.at(-1)).toMatchObject({ action: before.exists ? 'rotated' : 'created', metadata: { prefix } });
    expect(rows[0]).toMatchObject({
      action: 'rotated',
      actorId: org.adminId,
      metadata: { prefix: last.prefix, actorType: 'session' },
    });
  });

  it('keeps tenancy and scope: another organization 404, another project 404, read:release needed', async () => {
    expect((await evidence(other.key)).status).toBe(404);
    const project = await c.api(org.key, 'POST', '/projects', { name: 'Second', description: '' });
    const scoped = await c.admin.createKey({ user: org.adminId, scope: 'project', project: project.body.id as string });
    expect((await evidence(scoped.key)).status).toBe(404);
    const noRelease = await c.admin.createKey({ user: org.adminId, scope: 'organization', permissions: 'read:entry' });
    const denied = await evidence(noRelease.key);
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.bytes.toString('utf8')).message).toContain('read:release');
    expect((await evidence(org.key, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe("a release's head", () => {
  it('names the newest package, signed by the platform: an auditor given all but the newest package sees it withheld', async () => {
    const release = await c.api(org.key, 'POST', `/projects/${org.projectId}/releases`, {
      name: 'Headed',
      startDate: '2026-12-01',
      endDate: '2026-12-31',
    });
    const id = release.body.id as string;
    const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      title: 'headed',
      description: '-',
      type: 'feature_request',
      releaseId: id,
    });
    const headOf = (headers: Headers) =>
      JSON.parse(Buffer.from(headers.get('x-service-evidence-head')!, 'base64url').toString('utf8')) as { issuedAt: string };
    const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

    const first = await evidence(org.key, id);
    expect(headOf(first.headers)).toEqual({
      statement: 'release-evidence-head',
      organizationId: org.orgId,
      releaseId: id,
      sequence: 1,
      packageSha256: digest(first.bytes),
      issuedAt: expect.any(String),
    });
    // The facts change: package 2, and the head moves to it, also in the answer for package 1.
    expect((await c.api(org.key, 'PATCH', `/entries/${entry.body.id}`, { status: 'solved' })).status).toBe(200);
    const second = await evidence(org.key, id);
    const earlier = await evidence(org.key, id, '?sequence=1');
    expect(earlier.bytes.equals(first.bytes)).toBe(true);
    const head = headOf(earlier.headers);
    expect(head).toMatchObject({ sequence: 2, packageSha256: digest(second.bytes) });

    // Package 1 alone verifies as a package, but the head says package 2 is the newest.
    const packageArgs = ['--keys', publishedKeys, '--headers', headersFile(earlier.headers)];
    expect((await verify(earlier.bytes, packageArgs)).code).toBe(0);
    expect(await verify(earlier.bytes, [...packageArgs, '--head', headersFile(earlier.headers)])).toEqual({
      code: 1,
      out: `invalid: the head (issued ${head.issuedAt}) names package 2 as the newest, the newest given is package 1: package 2 is withheld`,
    });
    const newestArgs = [
      '--keys',
      publishedKeys,
      '--headers',
      headersFile(second.headers),
      '--previous',
      saved('1.json', earlier.bytes),
    ];
    expect(await verify(second.bytes, [...newestArgs, '--head', headersFile(earlier.headers)])).toEqual({
      code: 0,
      out: `valid: platform signature (key ${second.headers.get('x-service-evidence-platform-key-id')}, the development key: a local cluster only), chain of packages 1 to 2, the newest package, as the head issued ${head.issuedAt} says; code-hosting facts: none`,
    });
    // The head of package 1's first answer, replayed with package 2: it is stale.
    expect((await verify(second.bytes, [...newestArgs, '--head', headersFile(first.headers)])).out).toMatch(
      /names package 1 as the newest, older than the given package 2: fetch a current head$/,
    );
    // A head with another answer's signature does not verify.
    const forged = new Headers(earlier.headers);
    forged.set('x-service-evidence-head-signature', first.headers.get('x-service-evidence-head-signature')!);
    expect((await verify(second.bytes, [...newestArgs, '--head', headersFile(forged)])).out).toBe(
      'invalid: the head signature does not match (changed bytes, or another key)',
    );
  });
});
