import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@cluster/db';
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
let releaseId: string;
let otherReleaseId: string;
let developerId: string;
let outsiderId: string;

const minimal = { type: 'bug_report', title: 'Login fails', description: 'Steps in the body' };

/** Every optional field of the entry create body, with a valid value. */
function everyField() {
  return {
    ...minimal,
    type: 'feature_request',
    assignedToId: developerId,
    releaseId,
    priority: 'high',
    status: 'in_progress',
    webLink: 'https://example.test/e/1',
    stepsToReproduce: '1. open 2. click',
    expectedBehavior: 'works',
    actualBehavior: 'fails',
    environment: 'prod',
    useCase: 'checkout',
    proposedSolution: 'fix it',
    lowCost: '100',
    mediumCost: '250.50',
    highCost: '400',
    committedCost: '250.50',
    committedPosition: 'medium',
    costSource: 'estimate',
    costOverrideReason: null,
    statusChangedAt: '2026-05-01T10:00:00.000Z',
    approvalStatus: 'pending',
    costApprovalStatus: 'draft',
    typeMetadata: { browser: 'firefox', versions: [1, 2] },
  };
}

async function createEntry(body: Record<string, unknown> = minimal, projectId = org.projectId, key = org.key) {
  const res = await c.api(key, 'POST', `/projects/${projectId}/entries`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Record<string, Json>;
}

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Entries Org');
  other = await c.seedOrg('Other Org');
  const second = await c.api(org.key, 'POST', '/projects', { name: 'Second', description: 'second project' });
  secondProjectId = second.body.id;
  developerId = (await c.admin.createUser(org.orgId, 'dev@entries.test', 'Dev', 'developer')).id;
  outsiderId = (await c.admin.createUser(other.orgId, 'dev@other.test', 'Outsider', 'developer')).id;
  const rel = await c.api(org.key, 'POST', `/projects/${org.projectId}/releases`, {
    name: 'R1',
    startDate: '2026-05-01T00:00:00Z',
    endDate: '2026-06-01T00:00:00Z',
  });
  releaseId = rel.body.id;
  const otherRel = await c.api(org.key, 'POST', `/projects/${secondProjectId}/releases`, {
    name: 'R2',
    startDate: '2026-05-01T00:00:00Z',
    endDate: '2026-06-01T00:00:00Z',
  });
  otherReleaseId = otherRel.body.id;
});
afterAll(async () => c?.stop());

describe('entry create', () => {
  it('accepts every field of the spec and answers 201 with them, creatorId from the key, deploymentStage ignored', async () => {
    const body = { ...everyField(), deploymentStage: 'production' };
    const entry = await createEntry(body);
    const { deploymentStage: _ignored, ...expected } = body;
    expect(entry).toMatchObject(expected);
    expect(entry).toMatchObject({
      id: expect.any(String),
      projectId: org.projectId,
      entryNumber: expect.any(Number),
      creatorId: org.adminId,
      deploymentStage: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(entry).not.toHaveProperty('organizationId');
    const read = await c.api(org.key, 'GET', `/entries/${entry.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(entry);
  });

  it('defaults status open and priority medium; optional fields are null', async () => {
    const entry = await createEntry();
    expect(entry).toMatchObject({
      ...minimal,
      status: 'open',
      priority: 'medium',
      assignedToId: null,
      releaseId: null,
      typeMetadata: null,
      deploymentStage: null,
      approvalStatus: null,
      costApprovalStatus: null,
    });
  });

  it('answers a create with the fields a read answers, in the same order', async () => {
    const entry = await createEntry();
    const read = await c.api(org.key, 'GET', `/entries/${entry.id}`);
    expect(read.status).toBe(200);
    expect(Object.keys(entry)).toEqual(Object.keys(read.body));
    expect(entry).toEqual(read.body);
  });

  it('accepts typeMetadata as any JSON value (array, string, number, null)', async () => {
    for (const typeMetadata of [[1, 'a'], 'text', 42, null, { nested: { deep: true } }]) {
      const entry = await createEntry({ ...minimal, typeMetadata });
      expect(entry.typeMetadata).toEqual(typeMetadata);
    }
  });

  it('lists every problem of a body at once', async () => {
    const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { priority: 'urgent' });
    expect(res.status).toBe(400);
    const paths = res.body.details.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['/description', '/priority', '/title', '/type']);
  });

  const bad: BadCase[] = [
    { name: 'missing type', body: { title: 't', description: 'd' }, path: '/type' },
    { name: 'missing title', body: { type: 'bug_report', description: 'd' }, path: '/title' },
    { name: 'missing description', body: { type: 'bug_report', title: 't' }, path: '/description' },
    { name: 'type outside the enum', body: { ...minimal, type: 'bug' }, path: '/type' },
    { name: 'type not a string', body: { ...minimal, type: 3 }, path: '/type' },
    { name: 'empty title', body: { ...minimal, title: '' }, path: '/title' },
    { name: 'title not a string', body: { ...minimal, title: 12 }, path: '/title' },
    { name: 'description null', body: { ...minimal, description: null }, path: '/description' },
    { name: 'status outside the enum', body: { ...minimal, status: 'closed' }, path: '/status' },
    { name: 'status null', body: { ...minimal, status: null }, path: '/status' },
    { name: 'priority outside the enum', body: { ...minimal, priority: 'urgent' }, path: '/priority' },
    { name: 'approvalStatus outside the enum', body: { ...minimal, approvalStatus: 'maybe' }, path: '/approvalStatus' },
    { name: 'costApprovalStatus outside the enum', body: { ...minimal, costApprovalStatus: 'ok' }, path: '/costApprovalStatus' },
    { name: 'assignedToId not a uuid', body: { ...minimal, assignedToId: 'bob' }, path: '/assignedToId' },
    { name: 'releaseId not a string', body: { ...minimal, releaseId: 7 }, path: '/releaseId' },
    { name: 'webLink not a string', body: { ...minimal, webLink: 5 }, path: '/webLink' },
    { name: 'environment an object', body: { ...minimal, environment: {} }, path: '/environment' },
    { name: 'lowCost not a decimal string', body: { ...minimal, lowCost: 'cheap' }, path: '/lowCost' },
    { name: 'committedCost a number', body: { ...minimal, committedCost: 12 }, path: '/committedCost' },
    { name: 'highCost negative', body: { ...minimal, highCost: '-5' }, path: '/highCost' },
    { name: 'statusChangedAt not a timestamp', body: { ...minimal, statusChangedAt: 'yesterday' }, path: '/statusChangedAt' },
    { name: 'unknown property', body: { ...minimal, severity: 'high' }, path: '/severity' },
    {
      name: 'projectId in the body',
      body: { ...minimal, projectId: '00000000-0000-4000-8000-000000000000' },
      path: '/projectId',
    },
  ];
  it.each(bad)('rejects $name with 400 at $path', async ({ body, path }) => {
    expectValidation(await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, body), path);
  });

  it('rejects an assignee outside the organization and a release of another project with 400', async () => {
    expectValidation(
      await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { ...minimal, assignedToId: outsiderId }),
      '/assignedToId',
    );
    expectValidation(
      await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { ...minimal, releaseId: otherReleaseId }),
      '/releaseId',
    );
    expectValidation(
      await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
        ...minimal,
        releaseId: '00000000-0000-4000-8000-000000000000',
      }),
      '/releaseId',
    );
  });

  it('rejects a body that is not JSON with 400', async () => {
    const res = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, '{not json', {
      'content-type': 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('validation_error');
  });
});

describe('entryNumber', () => {
  it('numbers 20 concurrent creates 1..20 with no gaps or duplicates', async () => {
    const project = await c.api(org.key, 'POST', '/projects', { name: 'Numbers', description: 'concurrency' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        c.api(org.key, 'POST', `/projects/${project.body.id}/entries`, { ...minimal, title: `E${i}` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(results.map((r) => r.body.entryNumber).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('does not burn a number when a create fails after validation', async () => {
    const project = await c.api(org.key, 'POST', '/projects', { name: 'Numbers 2', description: 'rollback' });
    const pid = project.body.id;
    expect((await createEntry(minimal, pid)).entryNumber).toBe(1);
    const failed = await c.api(org.key, 'POST', `/projects/${pid}/entries`, { ...minimal, assignedToId: outsiderId });
    expect(failed.status).toBe(400);
    expect((await createEntry(minimal, pid)).entryNumber).toBe(2);
    expect((await createEntry(minimal, secondProjectId)).entryNumber).toBeGreaterThanOrEqual(1);
  });
});

describe('entry update', () => {
  it('changes only the supplied fields and keeps projectId', async () => {
    const entry = await createEntry(everyField());
    const res = await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { title: 'Renamed', typeMetadata: null, lowCost: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...entry, title: 'Renamed', typeMetadata: null, lowCost: null, updatedAt: expect.any(String) });
    expect(res.body.projectId).toBe(org.projectId);
  });

  it('accepts every field of the update body', async () => {
    const entry = await createEntry();
    const body = { ...everyField(), type: 'security', title: 'All', description: 'all fields', status: 'solved' };
    const res = await c.api(org.key, 'PATCH', `/entries/${entry.id}`, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(body);
  });

  it('ignores deploymentStage in an update body', async () => {
    const entry = await createEntry();
    const res = await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { deploymentStage: 'staging', title: 'Staged?' });
    expect(res.status).toBe(200);
    expect(res.body.deploymentStage).toBeNull();
    expect(res.body.title).toBe('Staged?');
  });

  it('answers 200 with the entry unchanged for an empty body', async () => {
    const entry = await createEntry();
    const res = await c.api(org.key, 'PATCH', `/entries/${entry.id}`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(entry);
  });

  it('sets statusChangedAt when the status moves and none is given', async () => {
    const entry = await createEntry();
    const res = await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { status: 'assigned' });
    expect(res.body.statusChangedAt).toEqual(expect.any(String));
    expect(Date.parse(res.body.statusChangedAt)).toBeGreaterThanOrEqual(Date.parse(entry.createdAt));
  });

  const bad: BadCase[] = [
    { name: 'projectId (immutable)', body: { projectId: '00000000-0000-4000-8000-000000000000' }, path: '/projectId' },
    { name: 'unknown property', body: { colour: 'red' }, path: '/colour' },
    { name: 'type outside the enum', body: { type: 'idea' }, path: '/type' },
    { name: 'status outside the enum', body: { status: 'done' }, path: '/status' },
    { name: 'priority a number', body: { priority: 1 }, path: '/priority' },
    { name: 'empty title', body: { title: '' }, path: '/title' },
    { name: 'title null', body: { title: null }, path: '/title' },
    { name: 'description a number', body: { description: 5 }, path: '/description' },
    { name: 'approvalStatus outside the enum', body: { approvalStatus: 'yes' }, path: '/approvalStatus' },
    { name: 'costApprovalStatus outside the enum', body: { costApprovalStatus: 'paid' }, path: '/costApprovalStatus' },
    { name: 'assignedToId not a uuid', body: { assignedToId: 'x' }, path: '/assignedToId' },
    { name: 'mediumCost not a decimal', body: { mediumCost: '1,5' }, path: '/mediumCost' },
    { name: 'statusChangedAt a number', body: { statusChangedAt: 1 }, path: '/statusChangedAt' },
  ];
  it.each(bad)('rejects $name with 400 at $path', async ({ body, path }) => {
    const entry = await createEntry();
    expectValidation(await c.api(org.key, 'PATCH', `/entries/${entry.id}`, body), path);
  });

  it('rejects an assignee of another organization and a release of another project', async () => {
    const entry = await createEntry();
    expectValidation(await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { assignedToId: outsiderId }), '/assignedToId');
    expectValidation(await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { releaseId: otherReleaseId }), '/releaseId');
    const ok = await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { assignedToId: developerId, releaseId });
    expect(ok.body).toMatchObject({ assignedToId: developerId, releaseId });
  });
});

describe('entry events (read from Kafka)', () => {
  it('entry.created carries entryId, projectId, title, type, status', async () => {
    const entry = await createEntry();
    const e = await eventOf(c, 'entry.created', entry.id);
    expect(e).toMatchObject({
      entityType: 'entry',
      entityId: entry.id,
      schemaVersion: 1,
      actorUserId: org.adminId,
      organizationId: org.orgId,
    });
    expect(e.payload).toEqual({
      entryId: entry.id,
      projectId: org.projectId,
      title: minimal.title,
      type: minimal.type,
      status: 'open',
      occurredAt: e.occurredAt,
    });
    expect(await settledEventsOf(c, entry.id)).toHaveLength(1);
  });

  it('a create with an assignee also emits entry.assigned', async () => {
    const entry = await createEntry({ ...minimal, assignedToId: developerId });
    const names = (await settledEventsOf(c, entry.id)).map((e) => e.eventName);
    expect(names).toEqual(['entry.created', 'entry.assigned']);
  });

  it('a field change emits only entry.updated with changedFields', async () => {
    const entry = await createEntry();
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { title: 'New title', priority: 'low' });
    const e = await eventOf(c, 'entry.updated', entry.id);
    expect(e.payload).toEqual({
      entryId: entry.id,
      projectId: org.projectId,
      title: 'New title',
      type: 'bug_report',
      status: 'open',
      changedFields: ['title', 'priority'],
      occurredAt: e.occurredAt,
    });
    const names = (await settledEventsOf(c, entry.id)).map((x) => x.eventName);
    expect(names).toEqual(['entry.created', 'entry.updated']);
  });

  it('a status move emits entry.updated and entry.status_changed with previousStatus/newStatus; the same status emits nothing', async () => {
    const entry = await createEntry();
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { status: 'in_progress' });
    const e = await eventOf(c, 'entry.status_changed', entry.id);
    expect(e.payload).toEqual({
      entryId: entry.id,
      projectId: org.projectId,
      title: minimal.title,
      type: 'bug_report',
      status: 'in_progress',
      previousStatus: 'open',
      newStatus: 'in_progress',
      occurredAt: e.occurredAt,
    });
    const updated = await eventOf(c, 'entry.updated', entry.id);
    expect(updated.payload.changedFields).toEqual(['status', 'statusChangedAt']);
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { status: 'in_progress' });
    const names = (await settledEventsOf(c, entry.id)).map((x) => x.eventName);
    expect(names).toEqual(['entry.created', 'entry.updated', 'entry.status_changed']);
  });

  it('an assignee change emits entry.assigned (and unassigning too)', async () => {
    const entry = await createEntry();
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { assignedToId: developerId });
    const e = await eventOf(c, 'entry.assigned', entry.id);
    expect(e.payload).toEqual({
      entryId: entry.id,
      projectId: org.projectId,
      title: minimal.title,
      type: 'bug_report',
      status: 'open',
      assignedToId: developerId,
      previousAssignedToId: null,
      occurredAt: e.occurredAt,
    });
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { assignedToId: developerId });
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { assignedToId: null });
    const second = await eventOf(c, 'entry.assigned', entry.id, 2);
    expect(second.payload).toMatchObject({ assignedToId: null, previousAssignedToId: developerId });
    const assigned = await settledEventsOf(c, entry.id, ['entry.assigned']);
    expect(assigned).toHaveLength(2);
  });

  it('costApprovalStatus moving to approved / rejected emits cost.approved / cost.rejected; other moves do not', async () => {
    const entry = await createEntry({ ...minimal, committedCost: '900', costApprovalStatus: 'draft' });
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { costApprovalStatus: 'pending_manager' });
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { costApprovalStatus: 'approved' });
    const approved = await eventOf(c, 'cost.approved', entry.id);
    expect(approved).toMatchObject({ entityType: 'entry', entityId: entry.id });
    expect(approved.payload).toEqual({
      entryId: entry.id,
      projectId: org.projectId,
      title: minimal.title,
      costApprovalStatus: 'approved',
      previousCostApprovalStatus: 'pending_manager',
      committedCost: '900',
      occurredAt: approved.occurredAt,
    });
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { costApprovalStatus: 'rejected' });
    const rejected = await eventOf(c, 'cost.rejected', entry.id);
    expect(rejected.payload).toMatchObject({ costApprovalStatus: 'rejected', previousCostApprovalStatus: 'approved' });
    const costEvents = await settledEventsOf(c, entry.id, ['cost.approved', 'cost.rejected']);
    expect(costEvents.map((x) => x.eventName)).toEqual(['cost.approved', 'cost.rejected']);
  });

  it('a delete emits no domain event (none in the vocabulary) but is audited', async () => {
    const entry = await createEntry();
    expect((await c.api(org.key, 'DELETE', `/entries/${entry.id}`)).status).toBe(204);
    const names = (await settledEventsOf(c, entry.id)).map((x) => x.eventName);
    expect(names).toEqual(['entry.created']);
    expect((await auditOf(c, org.key, 'entry', entry.id)).map((a) => a.action)).toContain('deleted');
  });
});

describe('entry list', () => {
  it('lists the project entries newest first with the true total and pages', async () => {
    const project = await c.api(org.key, 'POST', '/projects', { name: 'List', description: 'list' });
    const pid = project.body.id;
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createEntry({ ...minimal, title: `L${i}` }, pid));
    const res = await c.api(org.key, 'GET', `/projects/${pid}/entries?pageSize=2`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, pageSize: 2, total: 3 });
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([made[2].id, made[1].id]);
    const page2 = await c.api(org.key, 'GET', `/projects/${pid}/entries?pageSize=2&page=2`);
    expect(page2.body.data.map((e: { id: string }) => e.id)).toEqual([made[0].id]);
    const past = await c.api(org.key, 'GET', `/projects/${pid}/entries?page=9`);
    expect(past.body).toMatchObject({ data: [], total: 3 });
  });

  it('filters by status, type, priority, assignedToId and releaseId', async () => {
    const project = await c.api(org.key, 'POST', '/projects', { name: 'Filters', description: 'filters' });
    const pid = project.body.id;
    const rel = await c.api(org.key, 'POST', `/projects/${pid}/releases`, {
      name: 'F',
      startDate: '2026-01-01T00:00:00Z',
      endDate: '2026-02-01T00:00:00Z',
    });
    const a = await createEntry(
      { ...minimal, status: 'solved', priority: 'critical', assignedToId: developerId, releaseId: rel.body.id },
      pid,
    );
    await createEntry({ ...minimal, type: 'feedback' }, pid);
    const ids = async (q: string) =>
      (await c.api(org.key, 'GET', `/projects/${pid}/entries?${q}`)).body.data.map((e: { id: string }) => e.id);
    expect(await ids('status=solved')).toEqual([a.id]);
    expect(await ids('priority=critical')).toEqual([a.id]);
    expect(await ids(`assignedToId=${developerId}`)).toEqual([a.id]);
    expect(await ids(`releaseId=${rel.body.id}`)).toEqual([a.id]);
    expect(await ids('type=feedback')).toHaveLength(1);
    expect(await ids('type=bug_report&status=solved')).toEqual([a.id]);
  });

  it('rejects unknown enum filter values and bad paging with 400', async () => {
    for (const q of ['status=closed', 'type=bug', 'priority=urgent', 'assignedToId=bob', 'pageSize=101', 'page=0']) {
      const res = await c.api(org.key, 'GET', `/projects/${org.projectId}/entries?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.reason).toBe('validation_error');
    }
  });
});

describe('entry delete', () => {
  it('answers 204, then 404 on read and on a second delete', async () => {
    const entry = await createEntry();
    const res = await c.api(org.key, 'DELETE', `/entries/${entry.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectNotFound(await c.api(org.key, 'GET', `/entries/${entry.id}`));
    expectNotFound(await c.api(org.key, 'DELETE', `/entries/${entry.id}`));
  });

  it('answers 404 for ids that are not UUIDs', async () => {
    for (const [m, p] of [
      ['GET', '/entries/nope'],
      ['PATCH', '/entries/nope'],
      ['DELETE', '/entries/123'],
      ['GET', '/projects/x/entries'],
    ]) {
      expectNotFound(await c.api(org.key, m, p, m === 'PATCH' ? { title: 'x' } : undefined));
    }
  });
});

describe('entry audit', () => {
  it('records created, updated and deleted with the API key in metadata', async () => {
    const entry = await createEntry();
    await c.api(org.key, 'PATCH', `/entries/${entry.id}`, { title: 'Audited' });
    await c.api(org.key, 'DELETE', `/entries/${entry.id}`);
    const audits = await auditOf(c, org.key, 'entry', entry.id);
    expect(audits.map((a) => a.action).sort()).toEqual(['created', 'deleted', 'updated']);
    for (const a of audits) {
      expect(a.actorId).toBe(org.adminId);
      expect(a.metadata).toMatchObject({ actorType: 'api_key', apiKeyId: org.keyId });
    }
    expect(audits.find((a) => a.action === 'updated')?.metadata.changedFields).toEqual(['title']);
  });
});

describe('entry scope and tenancy', () => {
  let projectKey: string;
  let foreignEntry: Record<string, Json>;
  let ownEntry: Record<string, Json>;

  beforeAll(async () => {
    projectKey = (await c.admin.createKey({ user: org.adminId, scope: 'project', project: org.projectId })).key;
    foreignEntry = await createEntry(minimal, secondProjectId);
    ownEntry = await createEntry();
  });

  it('a project key works on its own project', async () => {
    expect((await c.api(projectKey, 'GET', `/projects/${org.projectId}/entries`)).status).toBe(200);
    const made = await createEntry(minimal, org.projectId, projectKey);
    expect(made.creatorId).toBe(org.adminId);
    expect((await c.api(projectKey, 'GET', `/entries/${ownEntry.id}`)).status).toBe(200);
    expect((await c.api(projectKey, 'PATCH', `/entries/${ownEntry.id}`, { title: 'mine' })).status).toBe(200);
    expect((await c.api(projectKey, 'DELETE', `/entries/${made.id}`)).status).toBe(204);
  });

  it('a project key gets 404 on another project entry by id', async () => {
    expectNotFound(await c.api(projectKey, 'GET', `/entries/${foreignEntry.id}`));
    expectNotFound(await c.api(projectKey, 'PATCH', `/entries/${foreignEntry.id}`, { title: 'x' }));
    expectNotFound(await c.api(projectKey, 'DELETE', `/entries/${foreignEntry.id}`));
  });

  it('a project key gets 403 scope_violation on another project path', async () => {
    expectScopeViolation(await c.api(projectKey, 'GET', `/projects/${secondProjectId}/entries`));
    expectScopeViolation(await c.api(projectKey, 'POST', `/projects/${secondProjectId}/entries`, minimal));
  });

  it('another organization key gets 404 on every entry route', async () => {
    expectNotFound(await c.api(other.key, 'GET', `/projects/${org.projectId}/entries`));
    expectNotFound(await c.api(other.key, 'POST', `/projects/${org.projectId}/entries`, minimal));
    expectNotFound(await c.api(other.key, 'GET', `/entries/${ownEntry.id}`));
    expectNotFound(await c.api(other.key, 'PATCH', `/entries/${ownEntry.id}`, { title: 'x' }));
    expectNotFound(await c.api(other.key, 'DELETE', `/entries/${ownEntry.id}`));
    expect((await c.api(org.key, 'GET', `/entries/${ownEntry.id}`)).status).toBe(200);
  });
});

describe('a refused entry create', () => {
  it("writes nothing when the project is another organization's or does not exist: no entry, number, audit record or event", async () => {
    const db = createDb(c.databaseUrl, { schema: 'core', poolMax: 1 });
    try {
      const state = async () => ({
        entries: Number((await db('entries').count({ n: '*' }))[0].n),
        counter: (await db('projects').where({ id: org.projectId }).first('entryCounter')).entryCounter,
        audits: Number(
          (await db('audit_events').where({ organizationId: other.orgId, entityType: 'entry' }).count({ n: '*' }))[0].n,
        ),
        outbox: Number((await db('outbox').count({ n: '*' }))[0].n),
      });
      await c.flushOutbox();
      const before = await state();
      expectNotFound(await c.api(other.key, 'POST', `/projects/${org.projectId}/entries`, minimal));
      expectNotFound(await c.api(other.key, 'POST', `/projects/${randomUUID()}/entries`, minimal));
      expect(await state()).toEqual(before);
      // The same statement does write all of it for the project's own organization.
      const made = await createEntry();
      const after = await state();
      expect(after.entries).toBe(before.entries + 1);
      expect(after.counter).toBe(before.counter + 1);
      expect(made.entryNumber).toBe(after.counter);
      expect(await auditOf(c, org.key, 'entry', made.id)).toHaveLength(1);
      await eventOf(c, 'entry.created', made.id);
      expect(c.events.all().filter((e) => e.organizationId === other.orgId && e.entityType === 'entry')).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});

describe('entry permissions', () => {
  const routes: [string, string, string, unknown?][] = [
    ['read:entry', 'GET', '/projects/:p/entries'],
    ['write:entry', 'POST', '/projects/:p/entries', minimal],
    ['read:entry', 'GET', '/entries/:e'],
    ['write:entry', 'PATCH', '/entries/:e', { title: 'x' }],
    ['delete:entry', 'DELETE', '/entries/:e'],
  ];
  it.each(routes)('a key lacking %s gets 403 naming it on %s %s', async (permission, method, path, body) => {
    const entry = await createEntry();
    const key = await keyLacking(c, org, permission);
    const res = await c.api(key, method, path.replace(':p', org.projectId).replace(':e', entry.id), body);
    expectMissingPermission(res, permission);
    // The same key passes every other entry route's permission.
    expect((await c.api(key, 'GET', `/entries/${entry.id}`)).status).toBe(permission === 'read:entry' ? 403 : 200);
  });
});
