import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

/**
 * The spec's "Scope rules by endpoint" table, row by row, for a project-scoped key
 * whose creator is an admin (so permissions never mask the scope rule).
 */
let c: TestCluster;
let org: SeededOrg;
let key: string;
let otherProjectId: string;
let ownEntryId: string;
let otherEntryId: string;
let ownTimeEntryId: string;
let otherTimeEntryId: string;

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Scope Org');
  key = (await c.admin.createKey({ user: org.adminId, scope: 'project', project: org.projectId })).key;
  otherProjectId = (await c.api(org.key, 'POST', '/projects', { name: 'Other', description: '' })).body.id;
  const entry = (pid: string) =>
    c.api(org.key, 'POST', `/projects/${pid}/entries`, { type: 'bug_report', title: 'needle scope', description: 'd' });
  ownEntryId = (await entry(org.projectId)).body.id;
  otherEntryId = (await entry(otherProjectId)).body.id;
  const time = (pid: string) =>
    c.api(org.key, 'POST', `/projects/${pid}/time-entries`, { userId: org.adminId, workDate: '2026-11-02', minutes: 30 });
  ownTimeEntryId = (await time(org.projectId)).body.id;
  otherTimeEntryId = (await time(otherProjectId)).body.id;
  await c.api(org.key, 'POST', '/integration-links', {
    provider: 'jira',
    externalType: 'issue',
    externalId: 'A-1',
    alignEntityType: 'entry',
    alignEntityId: ownEntryId,
  });
  await c.api(org.key, 'POST', '/integration-links', {
    provider: 'jira',
    externalType: 'issue',
    externalId: 'B-1',
    alignEntityType: 'entry',
    alignEntityId: otherEntryId,
  });
});
afterAll(async () => c?.stop());

const expectScopeViolation = (res: { status: number; body: { reason: string } }) => {
  expect(res.status).toBe(403);
  expect(res.body.reason).toBe('scope_violation');
};

describe('scope rules by endpoint, for a project-scoped key', () => {
  it('GET /me: allowed', async () => {
    expect((await c.api(key, 'GET', '/me')).status).toBe(200);
  });

  it('GET /projects: only its own project', async () => {
    const res = await c.api(key, 'GET', '/projects');
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([org.projectId]);
  });

  it('POST /projects: 403 scope_violation', async () => {
    expectScopeViolation(await c.api(key, 'POST', '/projects', { name: 'x', description: '' }));
  });

  it('entries and time entries under /projects/:id: own project only', async () => {
    expect((await c.api(key, 'GET', `/projects/${org.projectId}/entries`)).status).toBe(200);
    expect((await c.api(key, 'GET', `/projects/${org.projectId}/time-entries`)).status).toBe(200);
    expectScopeViolation(await c.api(key, 'GET', `/projects/${otherProjectId}/entries`));
    expectScopeViolation(
      await c.api(key, 'POST', `/projects/${otherProjectId}/entries`, { type: 'bug_report', title: 't', description: 'd' }),
    );
    expectScopeViolation(await c.api(key, 'GET', `/projects/${otherProjectId}/time-entries`));
    expect((await c.api(key, 'GET', `/entries/${ownEntryId}`)).status).toBe(200);
    expect((await c.api(key, 'GET', `/entries/${otherEntryId}`)).status).toBe(404);
  });

  it('GET /time-entries: 403 scope_violation', async () => {
    expectScopeViolation(await c.api(key, 'GET', '/time-entries'));
  });

  it("PATCH /time-entries/:id: own project only (another project's entry is 404)", async () => {
    expect((await c.api(key, 'PATCH', `/time-entries/${ownTimeEntryId}`, { minutes: 45 })).status).toBe(200);
    expect((await c.api(key, 'PATCH', `/time-entries/${otherTimeEntryId}`, { minutes: 45 })).status).toBe(404);
  });

  it('GET /users and POST /users/invite: 403 scope_violation', async () => {
    expectScopeViolation(await c.api(key, 'GET', '/users'));
    expectScopeViolation(await c.api(key, 'POST', '/users/invite', { email: 'n@example.test', name: 'N' }));
  });

  it('GET /webhooks and POST /webhooks: 403 scope_violation', async () => {
    expectScopeViolation(await c.api(key, 'GET', '/webhooks'));
    expectScopeViolation(
      await c.api(key, 'POST', '/webhooks', { destinationUrl: 'https://example.com/hook', eventNames: ['entry.created'] }),
    );
  });

  it('GET /integration-links, /audit-events, /search: results filtered to its project', async () => {
    const links = await c.api(key, 'GET', '/integration-links');
    expect(links.status).toBe(200);
    expect(links.body.data.map((l: { alignEntityId: string }) => l.alignEntityId)).toEqual([ownEntryId]);
    const audit = await c.api(key, 'GET', '/audit-events?pageSize=100');
    expect(audit.status).toBe(200);
    const ids = audit.body.data.map((e: { entityId: string }) => e.entityId);
    expect(ids).toContain(ownEntryId);
    expect(ids).not.toContain(otherEntryId);
    expect(ids).not.toContain(otherProjectId);
    const search = await c.api(key, 'GET', '/search?q=needle');
    expect(search.status).toBe(200);
    const found = search.body.data.map((r: { id: string }) => r.id);
    expect(found).toContain(ownEntryId);
    expect(found).not.toContain(otherEntryId);
  });
});
