import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, operations, verify, type ApiClient } from '@cluster/client';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

// The SDK (packages/client) against the real cluster: every namespace the OpenAPI document yields is
// called through it (checked against the generated operation table, not a list kept here), a list
// walked over more than two pages, typed errors, the request id of each answer, and a real webhook
// delivery verified with the SDK's re-exported verifier. Retries, idempotency and deadlines: test/sdk-retries.test.ts.

let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let receiver: Receiver;
let client: ApiClient;
/** Every request the SDK sent: `METHOD /api/v1/...` with its concrete path. */
const sent: string[] = [];

beforeAll(async () => {
  c = await startTestCluster();
  [org, other] = await Promise.all([c.seedOrg('SDK Org'), c.seedOrg('SDK Other')]);
  receiver = await startReceiver();
  client = createClient({ baseUrl: c.baseUrl, apiKey: org.key, fetch: recordingFetch });
});
afterAll(async () => {
  await receiver?.close();
  await c?.stop();
});

/** The global fetch, recording what the SDK sent. */
async function recordingFetch(request: Request): Promise<Response> {
  sent.push(`${request.method} ${new URL(request.url).pathname}`);
  return fetch(request);
}

/** The namespace of an operation whose path template matches a sent request. */
function namespacesCalled(): Set<string> {
  const called = new Set<string>();
  for (const [namespace, defs] of Object.entries(operations)) {
    for (const def of Object.values(defs)) {
      const pattern = new RegExp(`^${def.method.toUpperCase()} ${def.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (sent.some((s) => pattern.test(s))) called.add(namespace);
    }
  }
  return called;
}

describe('the SDK against the cluster', () => {
  it('identity, projects, entries (over three pages), comments, attachments', async () => {
    const me = await client.identity.me();
    expect(me).toMatchObject({ organizationId: org.orgId });

    const project = await client.projects.create({ name: 'SDK project', description: 'through the SDK' });
    expect(await client.projects.get(project.id)).toMatchObject({ name: 'SDK project' });
    // The escape hatch: any operation by method and path, typed and retried the same way.
    const byPath = await client.request('get', '/api/v1/projects/{id}', { path: { id: project.id } });
    expect(byPath.name).toBe('SDK project');
    expect((await client.projects.update(project.id, { description: 'changed' })).description).toBe('changed');
    const projects = await client.projects.list().toArray();
    expect(projects.map((p) => p.id)).toContain(project.id);

    const titles = Array.from({ length: 7 }, (_, i) => `entry ${i}`);
    for (const title of titles) await client.entries.create(project.id, { type: 'feedback', title, description: '-' });
    const before = sent.length;
    const seen: string[] = [];
    for await (const entry of client.entries.list(project.id, { pageSize: 3 })) seen.push(entry.title);
    expect(seen.sort()).toEqual(titles);
    // Three pages of 3, 3 and 1: more than two requests, and not one more.
    expect(sent.slice(before).filter((s) => s.endsWith(`/projects/${project.id}/entries`))).toHaveLength(3);
    const pages: number[] = [];
    for await (const page of client.entries.list(project.id, { pageSize: 3, type: 'feedback' }).pages())
      pages.push(page.data.length);
    expect(pages).toEqual([3, 3, 1]);

    const [entry] = await client.entries
      .list(project.id, { pageSize: 1 })
      .toArray()
      .then((all) => all.slice(0, 1));
    expect((await client.entries.update(entry.id, { priority: 'high' })).priority).toBe('high');
    expect((await client.entries.get(entry.id)).id).toBe(entry.id);

    const comment = await client.comments.create(entry.id, { content: 'first' });
    expect((await client.comments.update(comment.id, { content: 'edited' })).body).toBe('edited');
    expect((await client.comments.get(comment.id)).body).toBe('edited');
    expect((await client.comments.list(entry.id).toArray()).map((x) => x.id)).toEqual([comment.id]);
    await client.comments.delete(comment.id);

    const attachment = await client.attachments.create(entry.id, {
      fileName: 'a.txt',
      fileSize: '12',
      fileType: 'text/plain',
      objectPath: 'uploads/a.txt',
    });
    expect((await client.attachments.get(attachment.id)).fileName).toBe('a.txt');
    expect((await client.attachments.list(entry.id).toArray()).map((x) => x.id)).toEqual([attachment.id]);
    await client.attachments.delete(attachment.id);

    await client.entries.delete(entry.id);
    await expect(client.entries.get(entry.id)).rejects.toMatchObject({ status: 404, reason: 'not_found' });
    await client.projects.delete(project.id);
    await expect(client.projects.get(project.id)).rejects.toBeInstanceOf(ApiError);
  });

  it('releases and their evidence, integration links, time entries and approvals', async () => {
    const release = await client.releases.create(org.projectId, { name: 'R1', startDate: '2026-01-01', endDate: '2026-02-01' });
    expect((await client.releases.update(release.id, { status: 'testing' })).status).toBe('testing');
    expect((await client.releases.get(release.id)).name).toBe('R1');
    expect((await client.releases.list(org.projectId).toArray()).map((r) => r.id)).toContain(release.id);
    const evidence = await client.releases.evidence(release.id);
    expect(evidence).toMatchObject({ release: { id: release.id } });

    const link = await client.integrationLinks.create({
      provider: 'jira',
      externalType: 'issue',
      externalId: 'SDK-1',
      alignEntityType: 'release',
      alignEntityId: release.id,
    });
    expect((await client.integrationLinks.get(link.id)).externalId).toBe('SDK-1');
    expect((await client.integrationLinks.update(link.id, { alignEntityType: 'release' })).alignEntityType).toBe('release');
    expect((await client.integrationLinks.list({ provider: 'jira' }).toArray()).map((l) => l.id)).toEqual([link.id]);
    await client.integrationLinks.delete(link.id);
    await client.releases.delete(release.id);

    const logged = await client.timeEntries.create(org.projectId, { userId: org.adminId, workDate: '2026-11-02', minutes: 30 });
    expect((await client.timeEntries.update(logged.id, { minutes: 45 })).minutes).toBe(45);
    expect((await client.timeEntries.get(logged.id)).id).toBe(logged.id);
    expect((await client.timeEntries.submit(logged.id)).status).toBe('submitted');
    expect((await client.timeEntries.approve(logged.id, { note: 'fine' })).status).toBe('locked');
    expect((await client.timeEntries.unlock(logged.id, { reason: 'fix the minutes' })).status).toBe('draft');
    await client.timeEntries.submit(logged.id);
    expect((await client.timeEntries.reject(logged.id, { reason: 'wrong day' })).status).toBe('rejected');
    const synced = await client.timeEntries.sync({
      projectId: org.projectId,
      userId: org.adminId,
      workDate: '2026-11-03',
      minutes: 15,
      externalSystem: 'toggl',
      externalId: 'sdk-1',
    });
    expect(synced).toBeDefined();
    expect((await client.timeEntries.listForProject(org.projectId).toArray()).length).toBe(2);
    expect((await client.timeEntries.list({ userId: org.adminId }).toArray()).length).toBe(2);
    expect(await client.timeEntries.timeSummary(org.projectId)).toBeDefined();
    expect(await client.timeEntries.costSummary(org.projectId)).toBeDefined();
  });

  it('users and invites, members, wiki, agreements, snapshots, audit events, search', async () => {
    const invited = await client.users.invite({ email: 'sdk-invitee@example.test', name: 'Invitee', role: 'developer' });
    const bulk = await client.users.bulkInvite({ invites: [{ email: 'sdk-bulk@example.test', name: 'Bulk' }] });
    expect(bulk).toBeDefined();
    const users = await client.users.list().toArray();
    const invitee = users.find((u) => u.email === 'sdk-invitee@example.test');
    expect(invitee).toBeDefined();
    expect(invited).toBeDefined();
    expect((await client.users.update(invitee!.id, { name: 'Renamed' })).name).toBe('Renamed');
    expect((await client.users.get(invitee!.id)).name).toBe('Renamed');

    const member = await client.members.create(org.projectId, { userId: invitee!.id });
    expect((await client.members.list(org.projectId).toArray()).map((m) => m.userId)).toContain(invitee!.id);
    expect((await client.members.update(org.projectId, member.id, { roleOverride: 'tester' })).roleOverride).toBe('tester');
    // Removing a member takes delete:project_member, which only an explicit key grant carries.
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization', permissions: 'delete:project_member' });
    await createClient({ baseUrl: c.baseUrl, apiKey: key, fetch: recordingFetch }).members.delete(org.projectId, member.id);
    expect((await client.members.list(org.projectId).toArray()).map((m) => m.userId)).not.toContain(invitee!.id);

    const page = await client.wiki.create(org.projectId, { title: 'SDK page', content: 'hello' });
    expect((await client.wiki.update(page.id, { content: 'hello again' })).id).toBe(page.id);
    expect((await client.wiki.get(page.id)).content).toBe('hello again');
    expect((await client.wiki.list(org.projectId).toArray()).map((p) => p.id)).toEqual([page.id]);
    await client.wiki.delete(page.id);

    expect(await client.agreements.list(org.projectId).toArray()).toEqual([]);
    expect(await client.snapshots.list(org.projectId).toArray()).toEqual([]);
    expect((await client.audit.list().toArray()).length).toBeGreaterThan(0);
    expect(Array.isArray(await client.audit.listForProject(org.projectId).toArray())).toBe(true);
    const found = await client.search.get({ q: 'SDK' });
    expect(found).toBeDefined();
  });

  it('webhooks: a subscription, a real delivery verified with the SDK, its records, redelivery and recovery', async () => {
    const types = await client.webhooks.eventTypes();
    expect(types.data.map((t) => t.name)).toContain('entry.created');
    const hook = await client.webhooks.create({ destinationUrl: receiver.url, eventNames: ['entry.created'] });
    expect(hook.hmacSecret).toMatch(/^whsec_/);
    expect((await client.webhooks.update(hook.id, { description: 'sdk' })).description).toBe('sdk');
    expect((await client.webhooks.get(hook.id)).id).toBe(hook.id);
    expect((await client.webhooks.list().toArray()).map((h) => h.id)).toContain(hook.id);

    await client.entries.create(org.projectId, { type: 'feedback', title: 'delivered', description: '-' });
    const [delivery] = await receiver.waitFor(1, (r) => r.rawBody.includes('"delivered"'));
    const secret = hook.hmacSecret!;
    const verified = verify(delivery.rawBody, delivery.headers, secret);
    expect(verified.payload).toMatchObject({ eventName: 'entry.created' });
    expect(() => verify(`${delivery.rawBody} `, delivery.headers, secret)).toThrow();

    const test = await client.webhooks.test(hook.id, { eventName: 'entry.created' });
    expect(test).toBeDefined();
    const deliveries = await client.webhooks.listDeliveries(hook.id).toArray();
    expect(deliveries.length).toBeGreaterThan(0);
    expect((await client.webhooks.getDelivery(hook.id, deliveries[0].id)).id).toBe(deliveries[0].id);
    expect(await client.webhooks.stats(hook.id)).toBeDefined();
    expect(await client.webhooks.redeliver(hook.id, deliveries[0].id)).toBeDefined();
    const recovery = await client.webhooks.recover(hook.id, { since: new Date(Date.now() - 3_600_000).toISOString() });
    expect((await client.webhooks.getRecovery(hook.id, recovery.id)).id).toBe(recovery.id);
    const rotated = await client.webhooks.rotateSecret(hook.id);
    expect(rotated.hmacSecret).not.toBe(hook.hmacSecret);
    await client.webhooks.delete(hook.id);
  });

  it('portal: mints a one-time link, lists and ends sessions, and sets who may embed the portal (docs/portal.md)', async () => {
    const link = await client.portal.create({ access: 'read-only', lifetimeSeconds: 600 });
    expect(link.url).toMatch(/^\/portal\/start\?token=ptl_/);
    const live = await client.portal.list().toArray();
    expect(live.find((s) => s.id === link.id)).toMatchObject({ access: 'read-only', openedAt: null, expiresAt: null });
    await client.portal.delete(link.id);
    expect((await client.portal.list().toArray()).map((s) => s.id)).not.toContain(link.id);
    expect((await client.portal.patch({ frameAncestors: ['https://app.example.com'] })).frameAncestors).toEqual([
      'https://app.example.com',
    ]);
    expect((await client.portal.get()).frameAncestors).toEqual(['https://app.example.com']);
  });

  it('webhooks: an ed25519 subscription answers its public key, and its deliveries verify with it through the SDK', async () => {
    const hook = await client.webhooks.create({
      destinationUrl: receiver.url,
      eventNames: ['entry.created'],
      signatureScheme: 'ed25519',
    });
    expect(hook.hmacSecret).toBeUndefined();
    const publicKey = hook.publicKey!;
    expect(publicKey).toMatch(/^whpk_/);
    await client.entries.create(org.projectId, { type: 'feedback', title: 'signed v1a', description: '-' });
    const [delivery] = await receiver.waitFor(
      1,
      (r) => r.rawBody.includes('"signed v1a"') && String(r.headers['webhook-signature']).includes('v1a,'),
    );
    expect(verify(delivery.rawBody, delivery.headers, publicKey).payload).toMatchObject({ eventName: 'entry.created' });
    expect(() => verify(`${delivery.rawBody} `, delivery.headers, publicKey)).toThrow();
    await client.webhooks.delete(hook.id);
  });

  it("gives the gateway's request id of every answer: withResponse, each page, a 204, the caller's own id", async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const created = await client.projects.create({ name: 'request ids', description: '-' }).withResponse();
    expect([created.response.status, created.data.name]).toEqual([201, 'request ids']);
    expect(created.requestId).toMatch(uuid);
    const pages = [];
    for await (const page of client.projects.list({ pageSize: 1 }).pages()) pages.push(page.requestId);
    expect(pages.length).toBeGreaterThan(1);
    expect(new Set([created.requestId, ...pages]).size).toBe(pages.length + 1);
    // The gateway keeps a well-formed id the caller sends (docs/runbook.md): it is that one the SDK gives back.
    const traced = await client.projects.get(created.data.id, { headers: { 'X-Request-Id': 'sdk-trace-1' } }).withResponse();
    expect(traced.requestId).toBe('sdk-trace-1');
    const deleted = await client.projects.delete(created.data.id).withResponse();
    expect([deleted.data, deleted.response.status, deleted.requestId]).toEqual([undefined, 204, expect.stringMatching(uuid)]);
  });

  it('has called every namespace the OpenAPI document yields', () => {
    expect([...namespacesCalled()].sort()).toEqual(Object.keys(operations).sort());
  });
});

describe('typed errors', () => {
  it("answers another organization's id with ApiError 404 not_found", async () => {
    const theirs = await createClient({ baseUrl: c.baseUrl, apiKey: other.key }).projects.get(other.projectId);
    const err = await client.projects.get(theirs.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, reason: 'not_found' });
    expect((err as ApiError).requestId).toBeTruthy();
  });

  it('answers a bad body with ApiError 400 validation_error and every problem with its pointer', async () => {
    const err = await client.projects.create({ name: 7, description: 'x', status: 'nope' } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const apiError = err as ApiError;
    expect(apiError).toMatchObject({ status: 400, reason: 'validation_error' });
    const paths = (apiError.details?.errors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['/name', '/status']);
  });

  it('answers a bad key with 401 invalid_key (no retry)', async () => {
    const stranger = createClient({ baseUrl: `${c.baseUrl}/`, apiKey: 'not-a-key' });
    await expect(stranger.identity.me()).rejects.toMatchObject({ status: 401 });
  });
});
