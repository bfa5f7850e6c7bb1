import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  [org, other] = await Promise.all([c.seedOrg('Projects Org'), c.seedOrg('Other Org')]);
});
afterAll(async () => c?.stop());

const FULL = {
  name: 'Full',
  description: 'every field',
  status: 'on_hold',
  logoUrl: 'https://example.com/logo.png',
  wikiContent: '# Wiki',
  chatWebhookUrl: 'https://chat.example.com/hook',
  devUrl: 'https://dev.example.com',
  prodUrl: 'https://example.com',
  hostingAppUrl: 'https://host.example.com/app',
  hostingWorkspaceId: 'ws-1',
  hostingBoardId: 'b-1',
  hostingInstanceId: 'i-1',
  hostingAppName: 'app',
  lastAiStatusUpdate: 'all good',
  committedCostLockedAt: '2026-01-02T03:04:05.000Z',
  customLinks: [{ label: 'Docs', url: 'https://docs.example.com' }],
  requireCascadeApproval: true,
  codehostCommentSyncEnabled: true,
  codehostAutoStatusEnabled: true,
  codehostAdvancedEnabled: true,
  enforceDependencyBlocking: true,
  autoStatusOnUnblock: true,
  requireAutoStatusApproval: true,
  ciRequired: true,
  commitScorerEnabled: true,
  flakyOverridesEnabled: true,
  codehostAiSuggesterEnabled: true,
  codehostAiRiskEnabled: true,
  releaseNotesAiEnabled: true,
  statusUpdateAiEnabled: true,
  prDescriptionAiEnabled: true,
  reviewerSuggesterAiEnabled: true,
  commitLinterAiEnabled: true,
  timeBillingEnabled: true,
  invoicingMode: 'monthly',
  codehostAutoStatusTarget: 'main',
  autoStatusTargetStatus: 'deployed',
  ciCheckRunName: 'ci',
  autoLinkThreshold: '0.8',
  suggestThreshold: '0.5',
  scorerRecencyDays: -2147483648,
};

describe('project create and update', () => {
  it('round-trips every field of a full body', async () => {
    const res = await c.api(org.key, 'POST', '/projects', FULL);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...FULL, organizationId: org.orgId, clientId: org.orgId });
    const got = await c.api(org.key, 'GET', `/projects/${res.body.id}`);
    expect(got.body).toMatchObject(FULL);
    expect(got.body).not.toHaveProperty('entryCounter');
  });

  it('defaults status to active and optional fields to null/false', async () => {
    const res = await c.api(org.key, 'POST', '/projects', { name: 'Min', description: '' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'active',
      logoUrl: null,
      ciRequired: false,
      scorerRecencyDays: null,
      customLinks: null,
    });
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['missing name', { description: 'd' }, '/name'],
    ['missing description', { name: 'n' }, '/description'],
    ['name not a string', { name: 5, description: 'd' }, '/name'],
    ['status outside the enum', { status: 'paused' }, '/status'],
    ['boolean as string', { ciRequired: 'yes' }, '/ciRequired'],
    ['uri that is not a uri', { logoUrl: 'not a url' }, '/logoUrl'],
    ['uri as number', { devUrl: 42 }, '/devUrl'],
    ['scorerRecencyDays above int32', { scorerRecencyDays: 2147483648 }, '/scorerRecencyDays'],
    ['scorerRecencyDays below int32', { scorerRecencyDays: -2147483649 }, '/scorerRecencyDays'],
    ['scorerRecencyDays not an integer', { scorerRecencyDays: 1.5 }, '/scorerRecencyDays'],
    ['timestamp that is not one', { committedCostLockedAt: 'yesterday' }, '/committedCostLockedAt'],
    ['string field as boolean', { invoicingMode: true }, '/invoicingMode'],
    ['unknown property', { colour: 'blue' }, '/colour'],
    [
      'organizationId is not settable',
      { organizationId: org?.orgId ?? '00000000-0000-0000-0000-000000000000' },
      '/organizationId',
    ],
  ];

  it.each(bad)('create rejects %s with 400 and the field path', async (_, patch, path) => {
    const body = { name: 'n', description: 'd', ...patch };
    if (path === '/name' && !('name' in patch)) delete (body as Record<string, unknown>).name;
    if (path === '/description' && !('description' in patch)) delete (body as Record<string, unknown>).description;
    const res = await c.api(org.key, 'POST', '/projects', body);
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('validation_error');
    expect(res.body.details.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('lists every problem at once', async () => {
    const res = await c.api(org.key, 'POST', '/projects', { status: 'x', ciRequired: 1, extra: true });
    expect(res.status).toBe(400);
    const paths = res.body.details.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['/ciRequired', '/description', '/extra', '/name', '/status']);
  });

  it('PATCH changes only the supplied fields and keeps organizationId', async () => {
    const p = (await c.api(org.key, 'POST', '/projects', FULL)).body;
    const res = await c.api(org.key, 'PATCH', `/projects/${p.id}`, { status: 'archived', logoUrl: null, clientId: 'client-7' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ...FULL,
      status: 'archived',
      logoUrl: null,
      clientId: 'client-7',
      organizationId: org.orgId,
    });
    const again = await c.api(org.key, 'PATCH', `/projects/${p.id}`, {});
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('archived');
  });

  it.each(bad.filter(([n]) => !n.startsWith('missing')))('PATCH rejects %s', async (_, patch, path) => {
    const res = await c.api(org.key, 'PATCH', `/projects/${org.projectId}`, patch);
    expect(res.status).toBe(400);
    expect(res.body.details.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('answers 400 for a body that is not JSON, and for a JSON array', async () => {
    const res = await c.api(org.key, 'POST', '/projects', '{"name":');
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('validation_error');
    const arr = await c.api(org.key, 'POST', '/projects', [1]);
    expect(arr.status).toBe(400);
  });
});

describe('tenancy and deletion', () => {
  it("hides another organization's project behind 404 on every verb", async () => {
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      const res = await c.api(other.key, method, `/projects/${org.projectId}`, body);
      expect(res.status, method).toBe(404);
      expect(res.body.reason).toBe('not_found');
    }
    const list = await c.api(other.key, 'GET', '/projects?pageSize=100');
    expect(list.body.data.map((p: { id: string }) => p.id)).not.toContain(org.projectId);
  });

  it('answers 404 for an id that is not a UUID', async () => {
    const res = await c.api(org.key, 'GET', '/projects/not-a-uuid');
    expect(res.status).toBe(404);
  });

  it('needs role admin to delete: a manager key with delete:project is still refused', async () => {
    const { id: managerId } = await c.admin.createUser(org.orgId, 'mgr@example.test', 'Manager', 'manager');
    await c.admin.addMember(org.projectId, managerId);
    const { key } = await c.admin.createKey({ user: managerId, scope: 'project', project: org.projectId });
    const res = await c.api(key, 'DELETE', `/projects/${org.projectId}`);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('forbidden');
  });

  it('deletes with 204 and no body, then 404', async () => {
    const p = (await c.api(org.key, 'POST', '/projects', { name: 'doomed', description: '' })).body;
    const res = await c.api(org.key, 'DELETE', `/projects/${p.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await c.api(org.key, 'GET', `/projects/${p.id}`)).status).toBe(404);
    expect((await c.api(org.key, 'DELETE', `/projects/${p.id}`)).status).toBe(404);
  });
});

describe('pagination', () => {
  it('defaults to page 1 of 25, caps pageSize at 100, rejects bad values', async () => {
    const fresh = await c.seedOrg('Paging Org');
    await Promise.all(
      Array.from({ length: 29 }, (_, i) => c.api(fresh.key, 'POST', '/projects', { name: `p${i}`, description: '' })),
    );
    const first = await c.api(fresh.key, 'GET', '/projects');
    expect(first.body).toMatchObject({ page: 1, pageSize: 25, total: 30 });
    expect(first.body.data).toHaveLength(25);
    const hundred = await c.api(fresh.key, 'GET', '/projects?pageSize=100');
    expect(hundred.body.data).toHaveLength(30);
    for (const q of ['pageSize=101', 'pageSize=0', 'page=0', 'page=-1', 'page=abc', 'pageSize=2.5', 'status=paused']) {
      const res = await c.api(fresh.key, 'GET', `/projects?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.reason).toBe('validation_error');
    }
    const past = await c.api(fresh.key, 'GET', '/projects?page=9');
    expect(past.body).toMatchObject({ data: [], total: 30, page: 9 });
    const none = await c.api(fresh.key, 'GET', '/projects?status=archived');
    expect(none.body).toMatchObject({ data: [], total: 0, page: 1 });
  });

  it('keeps a stable order (createdAt desc, id desc) across pages', async () => {
    const fresh = await c.seedOrg('Order Org');
    for (let i = 0; i < 11; i++) await c.api(fresh.key, 'POST', '/projects', { name: `q${i}`, description: '' });
    const all = (await c.api(fresh.key, 'GET', '/projects?pageSize=100')).body.data.map((p: { id: string }) => p.id);
    const paged: string[] = [];
    for (let page = 1; page <= 4; page++) {
      paged.push(
        ...(await c.api(fresh.key, 'GET', `/projects?page=${page}&pageSize=3`)).body.data.map((p: { id: string }) => p.id),
      );
    }
    expect(paged).toEqual(all);
    expect(new Set(paged).size).toBe(12);
  });

  it('filters by status', async () => {
    const res = await c.api(org.key, 'GET', '/projects?status=on_hold&pageSize=100');
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((p: { status: string }) => p.status === 'on_hold')).toBe(true);
  });
});

describe('audit events', () => {
  it('records every write through a key with actorType api_key and apiKeyId', async () => {
    const p = (await c.api(org.key, 'POST', '/projects', { name: 'audited', description: '' })).body;
    await c.api(org.key, 'PATCH', `/projects/${p.id}`, { name: 'audited 2' });
    const res = await c.api(org.key, 'GET', `/projects/${p.id}/audit-events`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { action: string }) => e.action)).toEqual(['updated', 'created']);
    for (const e of res.body.data) {
      expect(e).toMatchObject({
        entityType: 'project',
        entityId: p.id,
        actorId: org.adminId,
        metadata: { actorType: 'api_key', apiKeyId: org.keyId },
      });
    }
    expect(res.body.data[0].metadata.changedFields).toEqual(['name']);
  });

  it('filters by entityType, action and actorId', async () => {
    const created = await c.api(org.key, 'GET', '/audit-events?action=created&entityType=project&pageSize=100');
    expect(created.body.data.length).toBeGreaterThan(1);
    expect(created.body.data.every((e: { action: string }) => e.action === 'created')).toBe(true);
    const none = await c.api(org.key, 'GET', '/audit-events?actorId=00000000-0000-0000-0000-000000000000');
    expect(none.body).toMatchObject({ data: [], total: 0 });
    const otherOrg = await c.api(other.key, 'GET', '/audit-events?pageSize=100');
    expect(otherOrg.body.data.every((e: { actorId: string }) => e.actorId === other.adminId)).toBe(true);
  });
});
