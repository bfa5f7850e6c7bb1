import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { createProject, keyLacking, projectKey, sql } from './support/people.ts';
import { distArgs } from './support/processes.ts';

let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let projectB: string;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const AGREEMENT_KEYS = ['createdAt', 'id', 'projectId', 'signedAt', 'status', 'title'];
const SNAPSHOT_KEYS = ['createdAt', 'id', 'narrativeSource', 'reportType', 'scopeId', 'scopeType', 'status', 'summary'];

/** Runs the real admin CLI against the test database, as an operator would. */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...distArgs('core', 'admin-cli'), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: c.databaseUrl, LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Agreements Org');
  other = await c.seedOrg('Other Agreements Org');
  projectB = await createProject(c, org.key, 'Project B');
});
afterAll(async () => c?.stop());

describe('agreements', () => {
  it('admin CLI: `agreement create` prints {id}; `agreement sign` prints {id, status}; errors exit 1', async () => {
    const created = await cli('agreement', 'create', '--project', org.projectId, '--title', 'Master services agreement');
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout);
    expect(Object.keys(JSON.parse(created.stdout))).toEqual(['id']);
    const got = await c.api(org.key, 'GET', `/agreements/${id}`);
    expect(got.body).toMatchObject({
      id,
      projectId: org.projectId,
      title: 'Master services agreement',
      status: 'pending_signature',
      signedAt: null,
    });

    const signed = await cli('agreement', 'sign', '--id', id);
    expect(signed.code).toBe(0);
    expect(JSON.parse(signed.stdout)).toEqual({ id, status: 'signed' });
    const [e] = await c.events.waitFor((x) => x.eventName === 'agreement.signed' && x.entityId === id);
    expect(e.actorUserId).toBeNull();

    const bad = await cli('agreement', 'create', '--project', org.projectId);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('--title is required');
    // The same operations refuse unknown ids (the CLI prints these messages and exits 1).
    await expect(c.admin.createAgreement(randomUUID(), 'x')).rejects.toThrow('unknown project');
    await expect(c.admin.createAgreement(org.projectId, '  ')).rejects.toThrow('--title is required');
    await expect(c.admin.signAgreement(randomUUID())).rejects.toThrow('unknown agreement');
  });

  it('lists and gets agreements with the spec fields (never the document)', async () => {
    const { id } = await c.admin.createAgreement(org.projectId, 'Statement of work');
    const list = await c.api(org.key, 'GET', `/projects/${org.projectId}/agreements`);
    expect(list.status).toBe(200);
    const item = list.body.data.find((a: { id: string }) => a.id === id);
    expect(Object.keys(item).sort()).toEqual(AGREEMENT_KEYS);
    expect(item).toMatchObject({
      projectId: org.projectId,
      title: 'Statement of work',
      status: 'pending_signature',
      signedAt: null,
    });
    const got = await c.api(org.key, 'GET', `/agreements/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(item);
  });

  it('signing emits agreement.signed once with actorUserId null and the spec payload', async () => {
    const { id } = await c.admin.createAgreement(org.projectId, 'NDA');
    expect(await c.admin.signAgreement(id)).toEqual({ id, status: 'signed' });
    expect(await c.admin.signAgreement(id)).toEqual({ id, status: 'signed' });
    const [e] = await c.events.waitFor((x) => x.eventName === 'agreement.signed' && x.entityId === id);
    expect(e).toMatchObject({
      entityType: 'agreement',
      actorUserId: null,
      organizationId: org.orgId,
      projectId: org.projectId,
      schemaVersion: 1,
    });
    expect(e.payload).toEqual({
      agreementId: id,
      projectId: org.projectId,
      clientId: org.orgId,
      status: 'signed',
      occurredAt: expect.any(String),
    });
    expect(await c.events.settle((x) => x.eventName === 'agreement.signed' && x.entityId === id)).toHaveLength(1);
    const got = await c.api(org.key, 'GET', `/agreements/${id}`);
    expect(got.body).toMatchObject({ status: 'signed', signedAt: expect.any(String) });
    const audit = await c.api(org.key, 'GET', `/projects/${org.projectId}/audit-events?entityType=agreement`);
    const actions = audit.body.data
      .filter((a: { entityId: string }) => a.entityId === id)
      .map((a: { action: string; actorId: string | null; metadata: unknown }) => [a.action, a.actorId, a.metadata]);
    expect(actions.sort()).toEqual([
      ['created', null, { actorType: 'admin_cli' }],
      ['signed', null, { actorType: 'admin_cli' }],
    ]);
  });

  it('does not create agreements through the API: 405 method_not_allowed with Allow: GET', async () => {
    const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/agreements`, { title: 'Nope' });
    expect(res.status).toBe(405);
    expect(res.body.reason).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET');
    for (const method of ['PATCH', 'DELETE']) {
      const r = await c.api(org.key, method, `/agreements/${randomUUID()}`, method === 'PATCH' ? {} : undefined);
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('GET');
    }
  });

  it('scopes agreements: a project key to its project, another organization sees nothing', async () => {
    const inA = await c.admin.createAgreement(org.projectId, 'In A');
    const inB = await c.admin.createAgreement(projectB, 'In B');
    const key = await projectKey(c, org);
    expect((await c.api(key, 'GET', `/agreements/${inA.id}`)).status).toBe(200);
    expect((await c.api(key, 'GET', `/agreements/${inB.id}`)).status).toBe(404);
    const list = await c.api(key, 'GET', `/projects/${projectB}/agreements`);
    expect(list.status).toBe(403);
    expect(list.body.reason).toBe('scope_violation');
    expect((await c.api(other.key, 'GET', `/agreements/${inA.id}`)).status).toBe(404);
    expect((await c.api(other.key, 'GET', `/projects/${org.projectId}/agreements`)).status).toBe(404);
    expect((await c.api(org.key, 'GET', '/agreements/not-a-uuid')).status).toBe(404);
    const listA = await c.api(key, 'GET', `/projects/${org.projectId}/agreements?pageSize=100`);
    expect(listA.body.data.map((a: { id: string }) => a.id)).toContain(inA.id);
    expect(listA.body.data.map((a: { id: string }) => a.id)).not.toContain(inB.id);
  });

  it('needs read:agreement', async () => {
    const { id } = await c.admin.createAgreement(org.projectId, 'Perm');
    const key = await keyLacking(c, org, 'read:agreement');
    for (const p of [`/projects/${org.projectId}/agreements`, `/agreements/${id}`]) {
      const res = await c.api(key, 'GET', p);
      expect(res.status, p).toBe(403);
      expect(res.body.message).toContain('read:agreement');
    }
  });
});

describe('snapshots', () => {
  it('admin CLI: `snapshot create` with every flag prints {id}; bad flags exit 1', async () => {
    const res = await cli(
      'snapshot',
      'create',
      '--project',
      org.projectId,
      '--report-type',
      'weekly_status',
      '--narrative-source',
      'ai',
      '--summary',
      'All green this week.',
    );
    expect(res.code).toBe(0);
    const { id } = JSON.parse(res.stdout);
    const list = await c.api(org.key, 'GET', `/projects/${org.projectId}/snapshots`);
    expect(list.body.data.find((s: { id: string }) => s.id === id)).toMatchObject({
      reportType: 'weekly_status',
      narrativeSource: 'ai',
      summary: 'All green this week.',
      status: 'ready',
    });
    const bad = await cli('snapshot', 'create', '--project', org.projectId, '--report-type', 'x', '--narrative-source', 'gpt');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--narrative-source must be ai or template');
    await expect(c.admin.createSnapshot({ projectId: org.projectId, reportType: '' })).rejects.toThrow(
      '--report-type is required',
    );
    await expect(c.admin.createSnapshot({ projectId: randomUUID(), reportType: 'x' })).rejects.toThrow('unknown project');
  });

  it('lists snapshots with the spec fields and the generated summary text', async () => {
    await sql(
      c,
      `INSERT INTO entries ("projectId", "organizationId", type, title, description, status)
      VALUES ($1, $2, 'bug_report', 'a', 'a', 'open'), ($1, $2, 'bug_report', 'b', 'b', 'open'), ($1, $2, 'feedback', 'c', 'c', 'solved')`,
      [projectB, org.orgId],
    );
    await c.api(org.key, 'POST', `/projects/${projectB}/wiki-pages`, { title: 'Handbook' });
    const { id } = await c.admin.createSnapshot({ projectId: projectB, reportType: 'monthly' });
    const res = await c.api(org.key, 'GET', `/projects/${projectB}/snapshots`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, pageSize: 25, total: 1 });
    const [snap] = res.body.data;
    expect(Object.keys(snap).sort()).toEqual(SNAPSHOT_KEYS);
    expect(snap).toMatchObject({
      id,
      scopeType: 'project',
      scopeId: projectB,
      reportType: 'monthly',
      status: 'ready',
      narrativeSource: 'template',
    });
    expect(snap.summary).toBe(
      'monthly report for Project B: 3 entries (2 open, 1 solved); 0 releases (0 released); 1 wiki page.',
    );
  });

  it('has no get by id: GET /snapshots/:id is 404 not_found', async () => {
    const { id } = await c.admin.createSnapshot({ projectId: org.projectId, reportType: 'weekly', summary: 'x' });
    const res = await c.api(org.key, 'GET', `/snapshots/${id}`);
    expect(res.status).toBe(404);
    expect(res.body.reason).toBe('not_found');
  });

  it('scopes snapshots and needs read:snapshot', async () => {
    const key = await projectKey(c, org);
    expect((await c.api(key, 'GET', `/projects/${org.projectId}/snapshots`)).status).toBe(200);
    expect((await c.api(key, 'GET', `/projects/${projectB}/snapshots`)).body.reason).toBe('scope_violation');
    expect((await c.api(other.key, 'GET', `/projects/${org.projectId}/snapshots`)).status).toBe(404);
    const res = await c.api(await keyLacking(c, org, 'read:snapshot'), 'GET', `/projects/${org.projectId}/snapshots`);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('read:snapshot');
  });
});
