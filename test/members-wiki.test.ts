import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantablePermissions } from '@cluster/contracts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { createProject, errorPaths, keyLacking, projectKey, sql } from './support/people.ts';

let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let projectB: string;
/** An admin key that also holds delete:project_member (outside every default set). */
let removerKey: string;

const MEMBER_KEYS = ['createdAt', 'id', 'metadata', 'projectId', 'roleOverride', 'userId'];
const PAGE_KEYS = ['content', 'createdAt', 'id', 'projectId', 'title', 'updatedAt'];
const email = (tag: string) => `${tag}-${randomUUID().slice(0, 8)}@example.test`;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Members Org');
  other = await c.seedOrg('Other Members Org');
  projectB = await createProject(c, org.key, 'Project B');
  removerKey = (
    await c.admin.createKey({
      user: org.adminId,
      scope: 'organization',
      permissions: [...grantablePermissions('admin')].join(','),
    })
  ).key;
});
afterAll(async () => c?.stop());

describe('project members', () => {
  it('adds a member with every field, lists it, and emits project_member.added', async () => {
    const u = await c.admin.createUser(org.orgId, email('m'), 'Member', 'developer');
    const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/members`, {
      userId: u.id,
      roleOverride: 'tech_lead',
      metadata: { source: 'scim', groups: ['a'] },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(MEMBER_KEYS);
    expect(res.body).toMatchObject({
      projectId: org.projectId,
      userId: u.id,
      roleOverride: 'tech_lead',
      metadata: { source: 'scim', groups: ['a'] },
    });

    const list = await c.api(org.key, 'GET', `/projects/${org.projectId}/members`);
    expect(list.status).toBe(200);
    expect(list.body.data.find((m: { id: string }) => m.id === res.body.id)).toEqual(res.body);

    const [e] = await c.events.waitFor((x) => x.eventName === 'project_member.added' && x.entityId === res.body.id);
    expect(e).toMatchObject({ entityType: 'project_member', projectId: org.projectId, actorUserId: org.adminId });
    expect(e.payload).toEqual({
      memberId: res.body.id,
      projectId: org.projectId,
      userId: u.id,
      roleOverride: 'tech_lead',
      organizationId: org.orgId,
      occurredAt: expect.any(String),
    });
    const audit = await c.api(org.key, 'GET', `/projects/${org.projectId}/audit-events?entityType=project_member&action=added`);
    expect(audit.body.data.map((a: { entityId: string }) => a.entityId)).toContain(res.body.id);
  });

  it('defaults roleOverride and metadata to null; a second add is 409 conflict', async () => {
    const u = await c.admin.createUser(org.orgId, email('dup'), 'Dup', 'user');
    const first = await c.api(org.key, 'POST', `/projects/${org.projectId}/members`, { userId: u.id });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ roleOverride: null, metadata: null });
    const again = await c.api(org.key, 'POST', `/projects/${org.projectId}/members`, { userId: u.id, roleOverride: 'manager' });
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('conflict');
  });

  it('refuses a user of another organization or an unknown user (404)', async () => {
    for (const userId of [other.adminId, randomUUID()]) {
      const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/members`, { userId });
      expect(res.status).toBe(404);
      expect(res.body.reason).toBe('not_found');
    }
  });

  it('refuses bad values and unknown properties', async () => {
    const cases: [unknown, string][] = [
      [{}, '/userId'],
      [{ userId: 'nope' }, '/userId'],
      [{ userId: 5 }, '/userId'],
      [{ userId: org.adminId, roleOverride: 'wizard' }, '/roleOverride'],
      [{ userId: org.adminId, roleOverride: 3 }, '/roleOverride'],
      [{ userId: org.adminId, metadata: 'x' }, '/metadata'],
      [{ userId: org.adminId, projectId: projectB }, '/projectId'],
    ];
    for (const [body, path] of cases) {
      const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/members`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorPaths(res.body)).toContain(path);
    }
  });

  it('updates roleOverride and metadata with project_member.updated (changedFields); bad bodies 400', async () => {
    const u = await c.admin.createUser(org.orgId, email('upd'), 'Upd', 'user');
    const m = (await c.api(org.key, 'POST', `/projects/${org.projectId}/members`, { userId: u.id, roleOverride: 'tester' })).body;
    const res = await c.api(org.key, 'PATCH', `/projects/${org.projectId}/members/${m.id}`, {
      roleOverride: null,
      metadata: { k: 'v' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...m, roleOverride: null, metadata: { k: 'v' } });
    const [e] = await c.events.waitFor((x) => x.eventName === 'project_member.updated' && x.entityId === m.id);
    expect(e.payload).toMatchObject({
      memberId: m.id,
      projectId: org.projectId,
      userId: u.id,
      roleOverride: null,
      changedFields: ['roleOverride', 'metadata'],
    });

    for (const [body, path] of [
      [{ roleOverride: 'x' }, '/roleOverride'],
      [{ metadata: 1 }, '/metadata'],
      [{ userId: u.id }, '/userId'],
    ] as const) {
      const bad = await c.api(org.key, 'PATCH', `/projects/${org.projectId}/members/${m.id}`, body);
      expect(bad.status).toBe(400);
      expect(errorPaths(bad.body)).toContain(path);
    }
    // The member id must belong to the project in the path.
    expect((await c.api(org.key, 'PATCH', `/projects/${projectB}/members/${m.id}`, { metadata: null })).status).toBe(404);
    expect((await c.api(org.key, 'PATCH', `/projects/${org.projectId}/members/not-a-uuid`, { metadata: null })).status).toBe(404);
  });

  it('removes a member only with delete:project_member, outside every default set', async () => {
    const u = await c.admin.createUser(org.orgId, email('rm'), 'Rm', 'user');
    const m = (await c.api(org.key, 'POST', `/projects/${org.projectId}/members`, { userId: u.id })).body;
    const denied = await c.api(org.key, 'DELETE', `/projects/${org.projectId}/members/${m.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ reason: 'forbidden', message: expect.stringContaining('delete:project_member') });

    const res = await c.api(removerKey, 'DELETE', `/projects/${org.projectId}/members/${m.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    const [e] = await c.events.waitFor((x) => x.eventName === 'project_member.removed' && x.entityId === m.id);
    expect(e.payload).toMatchObject({ memberId: m.id, projectId: org.projectId, userId: u.id });
    expect((await c.api(removerKey, 'DELETE', `/projects/${org.projectId}/members/${m.id}`)).status).toBe(404);
    const list = await c.api(org.key, 'GET', `/projects/${org.projectId}/members?pageSize=100`);
    expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(m.id);
  });

  it('keeps a project key to its project (403 scope_violation) and another organization out (404)', async () => {
    const key = await projectKey(c, org);
    expect((await c.api(key, 'GET', `/projects/${org.projectId}/members`)).status).toBe(200);
    const res = await c.api(key, 'GET', `/projects/${projectB}/members`);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('scope_violation');
    expect((await c.api(key, 'POST', `/projects/${projectB}/members`, { userId: org.adminId })).body.reason).toBe(
      'scope_violation',
    );
    for (const [method, path, body] of [
      ['GET', `/projects/${org.projectId}/members`, undefined],
      ['POST', `/projects/${org.projectId}/members`, { userId: other.adminId }],
      ['PATCH', `/projects/${org.projectId}/members/${randomUUID()}`, { metadata: null }],
    ] as const) {
      expect((await c.api(other.key, method, path, body)).status, `${method} ${path}`).toBe(404);
    }
  });

  it('needs read:project_member and write:project_member', async () => {
    const u = await c.admin.createUser(org.orgId, email('perm'), 'Perm', 'user');
    const m = (await c.api(org.key, 'POST', `/projects/${org.projectId}/members`, { userId: u.id })).body;
    const routes = [
      ['read:project_member', 'GET', `/projects/${org.projectId}/members`, undefined],
      ['write:project_member', 'POST', `/projects/${org.projectId}/members`, { userId: org.adminId }],
      ['write:project_member', 'PATCH', `/projects/${org.projectId}/members/${m.id}`, { metadata: null }],
    ] as const;
    for (const [perm, method, path, body] of routes) {
      const res = await c.api(await keyLacking(c, org, perm), method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.message).toContain(perm);
    }
  });
});

describe('wiki pages', () => {
  it('creates with every field, reads with full content, lists, emits wiki_page.created, audits', async () => {
    const content = `# Runbook\n\n${'Long content line.\n'.repeat(200)}`;
    const externalRef = { provider: 'confluence', externalType: 'page', externalId: randomUUID() };
    const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'Runbook', content, externalRef });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(PAGE_KEYS);
    expect(res.body).toMatchObject({ projectId: org.projectId, title: 'Runbook', content });

    const got = await c.api(org.key, 'GET', `/wiki-pages/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const list = await c.api(org.key, 'GET', `/projects/${org.projectId}/wiki-pages`);
    expect(list.body.data.find((p: { id: string }) => p.id === res.body.id)).toEqual(res.body);

    const links = await sql(c, 'SELECT * FROM integration_links WHERE "externalId" = $1', [externalRef.externalId]);
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({
      alignEntityType: 'wiki_page',
      alignEntityId: res.body.id,
      projectId: org.projectId,
      provider: 'confluence',
    });

    const [e] = await c.events.waitFor((x) => x.eventName === 'wiki_page.created' && x.entityId === res.body.id);
    expect(e).toMatchObject({ entityType: 'wiki_page', projectId: org.projectId, actorUserId: org.adminId });
    expect(e.payload).toEqual({
      wikiPageId: res.body.id,
      projectId: org.projectId,
      organizationId: org.orgId,
      title: 'Runbook',
      occurredAt: expect.any(String),
    });
    const audit = await c.api(org.key, 'GET', `/projects/${org.projectId}/audit-events?entityType=wiki_page&action=created`);
    expect(audit.body.data.map((a: { entityId: string }) => a.entityId)).toContain(res.body.id);
  });

  it('is an idempotent upsert on externalRef (200, the same page, one event)', async () => {
    const externalRef = { provider: 'notion', externalType: 'page', externalId: randomUUID() };
    const first = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'Once', externalRef });
    const again = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, {
      title: 'Twice',
      content: 'x',
      externalRef,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await c.events.settle((x) => x.eventName === 'wiki_page.created' && x.entityId === first.body.id)).toHaveLength(1);
    // The same ref under another project is a conflict, never a page of another project.
    const elsewhere = await c.api(org.key, 'POST', `/projects/${projectB}/wiki-pages`, { title: 'Elsewhere', externalRef });
    expect(elsewhere.status).toBe(409);
    // Without a ref, content defaults to null.
    const plain = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'Plain' });
    expect(plain.body.content).toBeNull();
  });

  it('refuses bad create and update bodies', async () => {
    const createCases: [unknown, string][] = [
      [{}, '/title'],
      [{ title: '' }, '/title'],
      [{ title: '   ' }, '/title'],
      [{ title: 5 }, '/title'],
      [{ title: null }, '/title'],
      [{ title: 'ok', content: 7 }, '/content'],
      [{ title: 'ok', externalRef: { provider: 'x', externalType: 'y' } }, '/externalRef/externalId'],
      [{ title: 'ok', externalRef: { provider: 'x', externalType: '', externalId: 'z' } }, '/externalRef/externalType'],
      [{ title: 'ok', slug: 'ok' }, '/slug'],
    ];
    for (const [body, path] of createCases) {
      const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorPaths(res.body)).toContain(path);
    }
    const page = (await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'Target' })).body;
    for (const [body, path] of [
      [{ title: '' }, '/title'],
      [{ content: [] }, '/content'],
      [{ projectId: projectB }, '/projectId'],
      [{ externalRef: null }, '/externalRef'],
    ] as const) {
      const res = await c.api(org.key, 'PATCH', `/wiki-pages/${page.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorPaths(res.body)).toContain(path);
    }
  });

  it('updates title and content (wiki_page.updated with changedFields) and deletes (204, wiki_page.deleted)', async () => {
    const page = (await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'Draft', content: 'v1' })).body;
    const res = await c.api(org.key, 'PATCH', `/wiki-pages/${page.id}`, { title: 'Final', content: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: page.id, title: 'Final', content: null, createdAt: page.createdAt });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(page.updatedAt));
    const [u] = await c.events.waitFor((x) => x.eventName === 'wiki_page.updated' && x.entityId === page.id);
    expect(u.payload).toMatchObject({
      wikiPageId: page.id,
      projectId: org.projectId,
      title: 'Final',
      changedFields: ['title', 'content'],
    });
    await c.api(org.key, 'PATCH', `/wiki-pages/${page.id}`, { title: 'Final' });
    expect(await c.events.settle((x) => x.eventName === 'wiki_page.updated' && x.entityId === page.id)).toHaveLength(1);

    const del = await c.api(org.key, 'DELETE', `/wiki-pages/${page.id}`);
    expect(del.status).toBe(204);
    const [d] = await c.events.waitFor((x) => x.eventName === 'wiki_page.deleted' && x.entityId === page.id);
    expect(d.payload).toMatchObject({ wikiPageId: page.id, projectId: org.projectId, title: 'Final' });
    expect((await c.api(org.key, 'GET', `/wiki-pages/${page.id}`)).status).toBe(404);
    expect((await c.api(org.key, 'DELETE', `/wiki-pages/${page.id}`)).status).toBe(404);
  });

  it('lets an externalRef create a fresh page after its page was deleted', async () => {
    const externalRef = { provider: 'confluence', externalType: 'page', externalId: randomUUID() };
    const first = (await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'Gone', externalRef })).body;
    await c.api(org.key, 'DELETE', `/wiki-pages/${first.id}`);
    const fresh = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'Back', externalRef });
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).not.toBe(first.id);
  });

  it('scopes pages: a project key sees its project only, another organization nothing', async () => {
    const inB = (await c.api(org.key, 'POST', `/projects/${projectB}/wiki-pages`, { title: 'In B' })).body;
    const inA = (await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'In A' })).body;
    const key = await projectKey(c, org);
    expect((await c.api(key, 'GET', `/wiki-pages/${inA.id}`)).status).toBe(200);
    expect((await c.api(key, 'PATCH', `/wiki-pages/${inA.id}`, { content: 'mine' })).status).toBe(200);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { title: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await c.api(key, method, `/wiki-pages/${inB.id}`, body)).status, method).toBe(404);
      expect((await c.api(other.key, method, `/wiki-pages/${inA.id}`, body)).status, method).toBe(404);
    }
    const list = await c.api(key, 'GET', `/projects/${projectB}/wiki-pages`);
    expect(list.status).toBe(403);
    expect(list.body.reason).toBe('scope_violation');
    expect((await c.api(key, 'POST', `/projects/${projectB}/wiki-pages`, { title: 'x' })).body.reason).toBe('scope_violation');
    expect((await c.api(other.key, 'GET', `/projects/${org.projectId}/wiki-pages`)).status).toBe(404);
    expect((await c.api(other.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'x' })).status).toBe(404);
    expect((await c.api(org.key, 'GET', '/wiki-pages/not-a-uuid')).status).toBe(404);
  });

  it('needs read:wiki, write:wiki and delete:wiki', async () => {
    const page = (await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'Perm' })).body;
    const routes = [
      ['read:wiki', 'GET', `/projects/${org.projectId}/wiki-pages`, undefined],
      ['write:wiki', 'POST', `/projects/${org.projectId}/wiki-pages`, { title: 'x' }],
      ['read:wiki', 'GET', `/wiki-pages/${page.id}`, undefined],
      ['write:wiki', 'PATCH', `/wiki-pages/${page.id}`, { title: 'x' }],
      ['delete:wiki', 'DELETE', `/wiki-pages/${page.id}`, undefined],
    ] as const;
    for (const [perm, method, path, body] of routes) {
      const res = await c.api(await keyLacking(c, org, perm), method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ reason: 'forbidden', message: expect.stringContaining(perm) });
    }
    // A key holding only read:wiki reads and cannot write.
    const readOnly = await projectKey(c, org, org.projectId, ['read:wiki']);
    expect((await c.api(readOnly, 'GET', `/wiki-pages/${page.id}`)).status).toBe(200);
    expect((await c.api(readOnly, 'PATCH', `/wiki-pages/${page.id}`, { title: 'x' })).body.message).toContain('write:wiki');
  });
});
