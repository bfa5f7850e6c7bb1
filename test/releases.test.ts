import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import type { Json } from './support/json.ts';
import {
  auditOf,
  eventOf,
  expectMissingPermission,
  expectNotFound,
  expectScopeViolation,
  expectValidation,
  keyLacking,
  settledEventsOf,
  type BadCase,
} from './support/work-items.ts';

let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let secondProjectId: string;

const minimal = { name: 'Spring', startDate: '2026-05-01T00:00:00.000Z', endDate: '2026-06-01T00:00:00.000Z' };

/** Every field of the release create body with a valid value. */
const everyField = {
  ...minimal,
  description: 'Spring release',
  version: '2.1.0',
  status: 'active',
  type: 'major',
  targetAudience: 'beta',
  riskLevel: 'high',
  rolloutPercentage: '25.5',
  releaseNotes: '- new things',
  retrospectiveNotes: null,
  dependsOnReleaseId: null,
  releasedAt: null,
  lowCost: '1000',
  mediumCost: '2000.25',
  highCost: '3000',
  committedCost: '2000.25',
  costUpdatedAt: '2026-04-30',
  costSource: 'estimate',
  cascadeAdvance: true,
  updatedAt: '2020-01-01T00:00:00Z',
};

async function createRelease(body: Record<string, unknown> = minimal, projectId = org.projectId, key = org.key) {
  const res = await c.api(key, 'POST', `/projects/${projectId}/releases`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Record<string, Json>;
}

const patch = (id: string, body: unknown, key = org.key) => c.api(key, 'PATCH', `/releases/${id}`, body);

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Releases Org');
  other = await c.seedOrg('Other Org');
  secondProjectId = (await c.api(org.key, 'POST', '/projects', { name: 'Second', description: 'second' })).body.id;
});
afterAll(async () => c?.stop());

describe('release create', () => {
  it('accepts every field and answers 201 with them (updatedAt is the server time)', async () => {
    const release = await createRelease(everyField);
    const { updatedAt: _ignored, ...expected } = everyField;
    expect(release).toMatchObject({ ...expected, id: expect.any(String), projectId: org.projectId, creatorId: org.adminId });
    expect(release.updatedAt).not.toBe('2020-01-01T00:00:00.000Z');
    expect(Date.parse(release.updatedAt)).toBeGreaterThan(Date.parse('2026-01-01'));
    expect(release).not.toHaveProperty('releasedEventSent');
    expect(release).not.toHaveProperty('organizationId');
    expect((await c.api(org.key, 'GET', `/releases/${release.id}`)).body).toEqual(release);
  });

  it('defaults status planning, type minor, releasedAt null', async () => {
    const release = await createRelease();
    expect(release).toMatchObject({
      ...minimal,
      status: 'planning',
      type: 'minor',
      releasedAt: null,
      description: null,
      version: null,
    });
  });

  it('takes calendar dates (YYYY-MM-DD) for start and end, as midnight UTC', async () => {
    const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/releases`, {
      name: 'Dated',
      startDate: '2026-12-01',
      endDate: '2026-12-31',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ startDate: '2026-12-01T00:00:00.000Z', endDate: '2026-12-31T00:00:00.000Z' });
  });

  const bad: BadCase[] = [
    { name: 'missing name', body: { startDate: minimal.startDate, endDate: minimal.endDate }, path: '/name' },
    { name: 'missing startDate', body: { name: 'x', endDate: minimal.endDate }, path: '/startDate' },
    { name: 'missing endDate', body: { name: 'x', startDate: minimal.startDate }, path: '/endDate' },
    { name: 'empty name', body: { ...minimal, name: '' }, path: '/name' },
    { name: 'name a number', body: { ...minimal, name: 1 }, path: '/name' },
    { name: 'startDate not a date-time', body: { ...minimal, startDate: 'next week' }, path: '/startDate' },
    { name: 'endDate a number', body: { ...minimal, endDate: 20260601 }, path: '/endDate' },
    { name: 'startDate a date that does not exist', body: { ...minimal, startDate: '2026-13-01' }, path: '/startDate' },
    { name: 'endDate a calendar date before startDate', body: { ...minimal, endDate: '2026-04-30' }, path: '/endDate' },
    { name: 'endDate before startDate', body: { ...minimal, endDate: '2026-04-01T00:00:00Z' }, path: '/endDate' },
    { name: 'status outside the enum', body: { ...minimal, status: 'shipped' }, path: '/status' },
    { name: 'type outside the enum', body: { ...minimal, type: 'tiny' }, path: '/type' },
    { name: 'targetAudience outside the enum', body: { ...minimal, targetAudience: 'everyone' }, path: '/targetAudience' },
    { name: 'riskLevel outside the enum', body: { ...minimal, riskLevel: 'extreme' }, path: '/riskLevel' },
    { name: 'rolloutPercentage over 100', body: { ...minimal, rolloutPercentage: '150' }, path: '/rolloutPercentage' },
    { name: 'rolloutPercentage a number', body: { ...minimal, rolloutPercentage: 50 }, path: '/rolloutPercentage' },
    { name: 'description a number', body: { ...minimal, description: 3 }, path: '/description' },
    { name: 'version an array', body: { ...minimal, version: ['1'] }, path: '/version' },
    { name: 'releasedAt not a date-time', body: { ...minimal, releasedAt: 'today' }, path: '/releasedAt' },
    { name: 'committedCost not a decimal', body: { ...minimal, committedCost: '12k' }, path: '/committedCost' },
    { name: 'cascadeAdvance a string', body: { ...minimal, cascadeAdvance: 'yes' }, path: '/cascadeAdvance' },
    { name: 'cascadeAdvance null', body: { ...minimal, cascadeAdvance: null }, path: '/cascadeAdvance' },
    { name: 'updatedAt a number', body: { ...minimal, updatedAt: 5 }, path: '/updatedAt' },
    { name: 'unknown property', body: { ...minimal, codename: 'x' }, path: '/codename' },
    {
      name: 'projectId in the body',
      body: { ...minimal, projectId: '00000000-0000-4000-8000-000000000000' },
      path: '/projectId',
    },
  ];
  it.each(bad)('rejects $name with 400 at $path', async ({ body, path }) => {
    expectValidation(await c.api(org.key, 'POST', `/projects/${org.projectId}/releases`, body), path);
  });
});

describe('release update', () => {
  it('changes only the supplied fields', async () => {
    const release = await createRelease(everyField);
    const res = await patch(release.id, { name: 'Summer', riskLevel: null, cascadeAdvance: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...release,
      name: 'Summer',
      riskLevel: null,
      cascadeAdvance: false,
      updatedAt: expect.any(String),
    });
  });

  it('accepts every field of the update body', async () => {
    const release = await createRelease();
    const body = {
      ...everyField,
      name: 'All',
      status: 'testing',
      startDate: '2026-07-01T00:00:00.000Z',
      endDate: '2026-07-02T00:00:00.000Z',
    };
    const res = await patch(release.id, body);
    expect(res.status).toBe(200);
    const { updatedAt: _ignored, ...expected } = body;
    expect(res.body).toMatchObject(expected);
  });

  const bad: BadCase[] = [
    { name: 'unknown property', body: { colour: 'blue' }, path: '/colour' },
    { name: 'projectId (immutable)', body: { projectId: '00000000-0000-4000-8000-000000000000' }, path: '/projectId' },
    { name: 'status outside the enum', body: { status: 'done' }, path: '/status' },
    { name: 'type outside the enum', body: { type: 'huge' }, path: '/type' },
    { name: 'name null', body: { name: null }, path: '/name' },
    { name: 'startDate not a date-time', body: { startDate: '2026-13-01' }, path: '/startDate' },
    { name: 'endDate before the stored startDate', body: { endDate: '2026-01-01T00:00:00Z' }, path: '/endDate' },
    { name: 'riskLevel outside the enum', body: { riskLevel: 'none' }, path: '/riskLevel' },
    { name: 'rolloutPercentage negative', body: { rolloutPercentage: '-1' }, path: '/rolloutPercentage' },
    { name: 'cascadeAdvance a number', body: { cascadeAdvance: 1 }, path: '/cascadeAdvance' },
  ];
  it.each(bad)('rejects $name with 400 at $path', async ({ body, path }) => {
    const release = await createRelease();
    expectValidation(await patch(release.id, body), path);
  });
});

describe('release events (read from Kafka)', () => {
  it('release.created carries releaseId, projectId, name, status, type, version and dates', async () => {
    const release = await createRelease({ ...minimal, version: '1.0.0' });
    const e = await eventOf(c, 'release.created', release.id);
    expect(e).toMatchObject({ entityType: 'release', entityId: release.id, actorUserId: org.adminId, organizationId: org.orgId });
    expect(e.payload).toEqual({
      releaseId: release.id,
      projectId: org.projectId,
      name: 'Spring',
      status: 'planning',
      type: 'minor',
      version: '1.0.0',
      startDate: minimal.startDate,
      endDate: minimal.endDate,
      occurredAt: e.occurredAt,
    });
  });

  it('every status change emits release.status_changed; other changes and same status emit nothing', async () => {
    const release = await createRelease();
    await patch(release.id, { status: 'active' });
    await patch(release.id, { status: 'active', name: 'Renamed' });
    await patch(release.id, { status: 'testing' });
    const changes = await c.events.waitFor((e) => e.eventName === 'release.status_changed' && e.entityId === release.id, 2);
    expect(changes[0].payload).toEqual({
      releaseId: release.id,
      projectId: org.projectId,
      name: 'Spring',
      status: 'active',
      previousStatus: 'planning',
      newStatus: 'active',
      occurredAt: changes[0].occurredAt,
    });
    expect(changes[1].payload).toMatchObject({
      name: 'Renamed',
      previousStatus: 'active',
      newStatus: 'testing',
      status: 'testing',
    });
    const names = (await settledEventsOf(c, release.id)).map((e) => e.eventName);
    expect(names).toEqual(['release.created', 'release.status_changed', 'release.status_changed']);
  });

  it('release.released fires exactly once, the first time, with releasedAt set', async () => {
    const release = await createRelease();
    const first = await patch(release.id, { status: 'released' });
    expect(first.body.releasedAt).toEqual(expect.any(String));
    const e = await eventOf(c, 'release.released', release.id);
    expect(e.payload).toEqual({
      releaseId: release.id,
      projectId: org.projectId,
      name: 'Spring',
      status: 'released',
      version: null,
      releasedAt: first.body.releasedAt,
      occurredAt: e.occurredAt,
    });
    await patch(release.id, { status: 'archived' });
    const again = await patch(release.id, { status: 'released' });
    expect(again.body.releasedAt).toBe(first.body.releasedAt);
    const names = (await settledEventsOf(c, release.id)).map((x) => x.eventName);
    expect(names).toEqual([
      'release.created',
      'release.status_changed',
      'release.released',
      'release.status_changed',
      'release.status_changed',
    ]);
  });

  it('keeps a releasedAt that was already set when the release enters released', async () => {
    const release = await createRelease({ ...minimal, releasedAt: '2026-05-20T12:00:00.000Z' });
    const res = await patch(release.id, { status: 'released' });
    expect(res.body.releasedAt).toBe('2026-05-20T12:00:00.000Z');
    const e = await eventOf(c, 'release.released', release.id);
    expect(e.payload.releasedAt).toBe('2026-05-20T12:00:00.000Z');
  });

  it('a release created as released emits release.created and release.released once', async () => {
    const release = await createRelease({ ...minimal, status: 'released' });
    expect(release.releasedAt).toEqual(expect.any(String));
    await patch(release.id, { status: 'completed' });
    await patch(release.id, { status: 'released' });
    const names = (await settledEventsOf(c, release.id)).map((x) => x.eventName);
    expect(names.filter((n) => n === 'release.released')).toHaveLength(1);
    expect(names[0]).toBe('release.created');
  });

  it('concurrent moves into released still emit release.released once', async () => {
    const release = await createRelease();
    const results = await Promise.all(Array.from({ length: 5 }, () => patch(release.id, { status: 'released' })));
    expect(results.map((r) => r.status)).toEqual(Array(5).fill(200));
    const released = await settledEventsOf(c, release.id, ['release.released', 'release.status_changed']);
    expect(released.map((e) => e.eventName)).toEqual(['release.status_changed', 'release.released']);
  });
});

describe('release list, get, delete', () => {
  it('lists newest first, filters by status and type, rejects unknown enum values', async () => {
    const pid = (await c.api(org.key, 'POST', '/projects', { name: 'RL', description: 'x' })).body.id;
    const a = await createRelease({ ...minimal, type: 'hotfix', status: 'testing' }, pid);
    const b = await createRelease(minimal, pid);
    const list = await c.api(org.key, 'GET', `/projects/${pid}/releases`);
    expect(list.body).toMatchObject({ page: 1, pageSize: 25, total: 2 });
    expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([b.id, a.id]);
    expect(
      (await c.api(org.key, 'GET', `/projects/${pid}/releases?type=hotfix`)).body.data.map((r: { id: string }) => r.id),
    ).toEqual([a.id]);
    expect(
      (await c.api(org.key, 'GET', `/projects/${pid}/releases?status=planning`)).body.data.map((r: { id: string }) => r.id),
    ).toEqual([b.id]);
    expect((await c.api(org.key, 'GET', `/projects/${pid}/releases?status=shipped`)).status).toBe(400);
    expect((await c.api(org.key, 'GET', `/projects/${pid}/releases?type=tiny`)).status).toBe(400);
  });

  it('deletes with 204; entries of the release keep existing without it; audit records every write', async () => {
    const release = await createRelease();
    const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      type: 'bug_report',
      title: 't',
      description: 'd',
      releaseId: release.id,
    });
    await patch(release.id, { name: 'Audited' });
    const res = await c.api(org.key, 'DELETE', `/releases/${release.id}`);
    expect(res.status).toBe(204);
    expectNotFound(await c.api(org.key, 'GET', `/releases/${release.id}`));
    expectNotFound(await c.api(org.key, 'DELETE', `/releases/${release.id}`));
    expect((await c.api(org.key, 'GET', `/entries/${entry.body.id}`)).body.releaseId).toBeNull();
    const audits = await auditOf(c, org.key, 'release', release.id);
    expect(audits.map((a) => a.action).sort()).toEqual(['created', 'deleted', 'updated']);
    for (const a of audits) expect(a.metadata).toMatchObject({ actorType: 'api_key', apiKeyId: org.keyId });
  });

  it('answers 404 for ids that are not UUIDs', async () => {
    expectNotFound(await c.api(org.key, 'GET', '/releases/abc'));
    expectNotFound(await c.api(org.key, 'PATCH', '/releases/abc', { name: 'x' }));
    expectNotFound(await c.api(org.key, 'DELETE', '/releases/abc'));
  });
});

describe('release scope and tenancy', () => {
  let projectKey: string;
  let own: Record<string, Json>;
  let foreign: Record<string, Json>;
  beforeAll(async () => {
    projectKey = (await c.admin.createKey({ user: org.adminId, scope: 'project', project: org.projectId })).key;
    own = await createRelease();
    foreign = await createRelease(minimal, secondProjectId);
  });

  it('a project key works on its own project releases', async () => {
    expect((await c.api(projectKey, 'GET', `/projects/${org.projectId}/releases`)).status).toBe(200);
    const made = await createRelease(minimal, org.projectId, projectKey);
    expect((await c.api(projectKey, 'GET', `/releases/${own.id}`)).status).toBe(200);
    expect((await patch(own.id, { name: 'mine' }, projectKey)).status).toBe(200);
    expect((await c.api(projectKey, 'DELETE', `/releases/${made.id}`)).status).toBe(204);
  });

  it('a project key gets 404 on another project release by id and 403 scope_violation on its path', async () => {
    expectNotFound(await c.api(projectKey, 'GET', `/releases/${foreign.id}`));
    expectNotFound(await patch(foreign.id, { name: 'x' }, projectKey));
    expectNotFound(await c.api(projectKey, 'DELETE', `/releases/${foreign.id}`));
    expectScopeViolation(await c.api(projectKey, 'GET', `/projects/${secondProjectId}/releases`));
    expectScopeViolation(await c.api(projectKey, 'POST', `/projects/${secondProjectId}/releases`, minimal));
  });

  it('another organization key gets 404 on every release route', async () => {
    expectNotFound(await c.api(other.key, 'GET', `/projects/${org.projectId}/releases`));
    expectNotFound(await c.api(other.key, 'POST', `/projects/${org.projectId}/releases`, minimal));
    expectNotFound(await c.api(other.key, 'GET', `/releases/${own.id}`));
    expectNotFound(await patch(own.id, { name: 'x' }, other.key));
    expectNotFound(await c.api(other.key, 'DELETE', `/releases/${own.id}`));
  });
});

describe('release permissions', () => {
  const routes: [string, string, string, unknown?][] = [
    ['read:release', 'GET', '/projects/:p/releases'],
    ['write:release', 'POST', '/projects/:p/releases', minimal],
    ['read:release', 'GET', '/releases/:r'],
    ['write:release', 'PATCH', '/releases/:r', { name: 'x' }],
    ['delete:release', 'DELETE', '/releases/:r'],
  ];
  it.each(routes)('a key lacking %s gets 403 naming it on %s %s', async (permission, method, path, body) => {
    const release = await createRelease();
    const key = await keyLacking(c, org, permission);
    expectMissingPermission(
      await c.api(key, method, path.replace(':p', org.projectId).replace(':r', release.id), body),
      permission,
    );
  });

  it('a developer project key (default set) may write and delete releases; its default set lacks nothing here', async () => {
    const devId = (await c.admin.createUser(org.orgId, 'dev@releases.test', 'Dev', 'developer')).id;
    await c.admin.addMember(org.projectId, devId);
    const key = (await c.admin.createKey({ user: devId, scope: 'project', project: org.projectId })).key;
    const release = await createRelease(minimal, org.projectId, key);
    expect(release.creatorId).toBe(devId);
    expect((await c.api(key, 'DELETE', `/releases/${release.id}`)).status).toBe(204);
  });
});
