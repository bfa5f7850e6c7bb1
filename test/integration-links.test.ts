import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import type { Json } from './support/json.ts';
import {
  auditOf,
  eventOf,
  expectMissingPermission,
  expectNotFound,
  expectValidation,
  keyLacking,
  settledEventsOf,
  type BadCase,
} from './support/work-items.ts';

let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;
let secondProjectId: string;
let entryId: string;
let secondEntryId: string;
let foreignEntryId: string;
let counter = 0;

/** A link body with a fresh external id (each test its own external record). */
function linkBody(extra: Record<string, unknown> = {}) {
  return {
    provider: 'jira',
    externalType: 'issue',
    externalId: `PROJ-${++counter}`,
    alignEntityType: 'entry',
    alignEntityId: entryId,
    ...extra,
  };
}

async function createLink(body: Record<string, unknown> = linkBody(), key = org.key) {
  const res = await c.api(key, 'POST', '/integration-links', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Record<string, Json>;
}

async function entryIn(projectId: string, key = org.key) {
  return (await c.api(key, 'POST', `/projects/${projectId}/entries`, { type: 'bug_report', title: 't', description: 'd' })).body
    .id as string;
}

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Links Org');
  other = await c.seedOrg('Other Org');
  secondProjectId = (await c.api(org.key, 'POST', '/projects', { name: 'Second', description: 'second' })).body.id;
  entryId = await entryIn(org.projectId);
  secondEntryId = await entryIn(secondProjectId);
  foreignEntryId = await entryIn(other.projectId, other.key);
});
afterAll(async () => c?.stop());

describe('integration link create', () => {
  it('creates with every field (201) and answers 200 with the same link on a repeat', async () => {
    const body = linkBody();
    const first = await createLink(body);
    expect(first).toEqual({
      id: expect.any(String),
      organizationId: org.orgId,
      provider: 'jira',
      externalType: 'issue',
      externalId: body.externalId,
      alignEntityType: 'entry',
      alignEntityId: entryId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const again = await c.api(org.key, 'POST', '/integration-links', {
      ...body,
      alignEntityType: 'project',
      alignEntityId: org.projectId,
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first);
    expect((await c.api(org.key, 'GET', `/integration-links/${first.id}`)).body).toEqual(first);
  });

  it('concurrent creates of one external record make one link: one 201, the rest 200', async () => {
    const body = linkBody();
    const results = await Promise.all(Array.from({ length: 6 }, () => c.api(org.key, 'POST', '/integration-links', body)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const created = await settledEventsOf(c, results[0].body.id, ['integration_link.created']);
    expect(created).toHaveLength(1);
  });

  it('links every known internal type: project, entry, release, comment, attachment, user', async () => {
    const release = await c.api(org.key, 'POST', `/projects/${org.projectId}/releases`, {
      name: 'R',
      startDate: '2026-01-01T00:00:00Z',
      endDate: '2026-02-01T00:00:00Z',
    });
    const com = await c.api(org.key, 'POST', `/entries/${entryId}/comments`, { content: 'c' });
    const att = await c.api(org.key, 'POST', `/entries/${entryId}/attachments`, {
      fileName: 'a',
      fileSize: '1',
      fileType: 'text/plain',
      objectPath: 'p',
    });
    const targets: [string, string][] = [
      ['project', org.projectId],
      ['entry', entryId],
      ['release', release.body.id],
      ['comment', com.body.id],
      ['attachment', att.body.id],
      ['user', org.adminId],
    ];
    for (const [alignEntityType, alignEntityId] of targets) {
      const link = await createLink(linkBody({ alignEntityType, alignEntityId }));
      expect(link).toMatchObject({ alignEntityType, alignEntityId });
    }
  });

  const bad: (BadCase & { omit?: string })[] = [
    ...['provider', 'externalType', 'externalId', 'alignEntityType', 'alignEntityId'].map((f) => ({
      name: `missing ${f}`,
      body: {},
      omit: f,
      path: `/${f}`,
    })),
    { name: 'empty provider', body: { provider: '' }, path: '/provider' },
    { name: 'empty externalType', body: { externalType: '' }, path: '/externalType' },
    { name: 'externalId a number', body: { externalId: 12 }, path: '/externalId' },
    { name: 'alignEntityId not a uuid', body: { alignEntityId: 'ENTRY-1' }, path: '/alignEntityId' },
    { name: 'alignEntityType unknown', body: { alignEntityType: 'spaceship' }, path: '/alignEntityType' },
    {
      name: 'alignEntityId of no such entry',
      body: { alignEntityId: '00000000-0000-4000-8000-000000000000' },
      path: '/alignEntityId',
    },
    { name: 'unknown property', body: { url: 'https://x' }, path: '/url' },
    {
      name: 'organizationId in the body',
      body: { organizationId: '00000000-0000-4000-8000-000000000000' },
      path: '/organizationId',
    },
  ];
  it.each(bad)('rejects $name with 400 at $path', async ({ body, omit, path }) => {
    const sent: Record<string, unknown> = { ...linkBody(), ...body };
    if (omit) delete sent[omit];
    expectValidation(await c.api(org.key, 'POST', '/integration-links', sent), path);
  });

  it('rejects a target of another organization with 400', async () => {
    expectValidation(
      await c.api(org.key, 'POST', '/integration-links', linkBody({ alignEntityId: foreignEntryId })),
      '/alignEntityId',
    );
    expectValidation(
      await c.api(
        org.key,
        'POST',
        '/integration-links',
        linkBody({ alignEntityType: 'project', alignEntityId: other.projectId }),
      ),
      '/alignEntityId',
    );
  });
});

describe('integration link update and delete', () => {
  it('re-points the link (every field of the update body); only supplied fields change', async () => {
    const link = await createLink();
    const res = await c.api(org.key, 'PATCH', `/integration-links/${link.id}`, {
      alignEntityType: 'project',
      alignEntityId: org.projectId,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...link,
      alignEntityType: 'project',
      alignEntityId: org.projectId,
      updatedAt: expect.any(String),
    });
    const only = await c.api(org.key, 'PATCH', `/integration-links/${link.id}`, { alignEntityId: secondProjectId });
    expect(only.body).toMatchObject({ alignEntityType: 'project', alignEntityId: secondProjectId, externalId: link.externalId });
  });

  const bad: BadCase[] = [
    { name: 'provider (not updatable)', body: { provider: 'github' }, path: '/provider' },
    { name: 'externalId (not updatable)', body: { externalId: 'X' }, path: '/externalId' },
    { name: 'alignEntityId not a uuid', body: { alignEntityId: 'x' }, path: '/alignEntityId' },
    { name: 'alignEntityType empty', body: { alignEntityType: '' }, path: '/alignEntityType' },
    { name: 'alignEntityType unknown', body: { alignEntityType: 'galaxy' }, path: '/alignEntityType' },
    { name: 'target of the wrong type', body: { alignEntityType: 'release' }, path: '/alignEntityId' },
  ];
  it.each(bad)('rejects $name with 400 at $path', async ({ body, path }) => {
    const link = await createLink();
    expectValidation(await c.api(org.key, 'PATCH', `/integration-links/${link.id}`, body), path);
  });

  it('deletes with 204, then 404; the external record can be linked anew', async () => {
    const body = linkBody();
    const link = await createLink(body);
    expect((await c.api(org.key, 'DELETE', `/integration-links/${link.id}`)).status).toBe(204);
    expectNotFound(await c.api(org.key, 'GET', `/integration-links/${link.id}`));
    expectNotFound(await c.api(org.key, 'DELETE', `/integration-links/${link.id}`));
    const again = await createLink(body);
    expect(again.id).not.toBe(link.id);
  });

  it('answers 404 for ids that are not UUIDs', async () => {
    expectNotFound(await c.api(org.key, 'GET', '/integration-links/x'));
    expectNotFound(await c.api(org.key, 'PATCH', '/integration-links/x', { alignEntityType: 'entry' }));
    expectNotFound(await c.api(org.key, 'DELETE', '/integration-links/x'));
  });
});

describe('integration link events and audit', () => {
  it('integration_link.created and .updated carry the link fields (updated with changedFields); a replay emits nothing', async () => {
    const body = linkBody();
    const link = await createLink(body);
    const created = await eventOf(c, 'integration_link.created', link.id);
    expect(created).toMatchObject({
      entityType: 'integration_link',
      entityId: link.id,
      actorUserId: org.adminId,
      projectId: org.projectId,
    });
    expect(created.payload).toEqual({
      integrationLinkId: link.id,
      organizationId: org.orgId,
      provider: 'jira',
      externalType: 'issue',
      externalId: body.externalId,
      alignEntityType: 'entry',
      alignEntityId: entryId,
      occurredAt: created.occurredAt,
    });
    expect((await c.api(org.key, 'POST', '/integration-links', body)).status).toBe(200);
    await c.api(org.key, 'PATCH', `/integration-links/${link.id}`, { alignEntityId: entryId });
    await c.api(org.key, 'PATCH', `/integration-links/${link.id}`, { alignEntityType: 'project', alignEntityId: org.projectId });
    const updated = await eventOf(c, 'integration_link.updated', link.id);
    expect(updated.payload).toEqual({
      integrationLinkId: link.id,
      organizationId: org.orgId,
      provider: 'jira',
      externalType: 'issue',
      externalId: body.externalId,
      alignEntityType: 'project',
      alignEntityId: org.projectId,
      changedFields: ['alignEntityType', 'alignEntityId'],
      occurredAt: updated.occurredAt,
    });
    const names = (await settledEventsOf(c, link.id)).map((e) => e.eventName);
    expect(names).toEqual(['integration_link.created', 'integration_link.updated']);
  });

  it('audits created, updated and deleted', async () => {
    const link = await createLink();
    await c.api(org.key, 'PATCH', `/integration-links/${link.id}`, { alignEntityType: 'project', alignEntityId: org.projectId });
    await c.api(org.key, 'DELETE', `/integration-links/${link.id}`);
    const audits = await auditOf(c, org.key, 'integration_link', link.id);
    expect(audits.map((a) => a.action).sort()).toEqual(['created', 'deleted', 'updated']);
    for (const a of audits) expect(a.metadata).toMatchObject({ actorType: 'api_key', apiKeyId: org.keyId });
  });
});

describe('integration link list, scope and tenancy', () => {
  let projectKey: string;
  let own: Record<string, Json>;
  let foreign: Record<string, Json>;
  let orgLevel: Record<string, Json>;

  beforeAll(async () => {
    projectKey = (await c.admin.createKey({ user: org.adminId, scope: 'project', project: org.projectId })).key;
    own = await createLink(linkBody({ provider: 'scope' }));
    foreign = await createLink(linkBody({ provider: 'scope', alignEntityId: secondEntryId }));
    orgLevel = await createLink(linkBody({ provider: 'scope', alignEntityType: 'user', alignEntityId: org.adminId }));
  });

  it('an organization key lists all links of its organization, newest first, with filters', async () => {
    const res = await c.api(org.key, 'GET', '/integration-links?provider=scope');
    expect(res.status).toBe(200);
    expect(res.body.data.map((l: { id: string }) => l.id)).toEqual([orgLevel.id, foreign.id, own.id]);
    expect(res.body.total).toBe(3);
    const byTarget = await c.api(
      org.key,
      'GET',
      `/integration-links?provider=scope&alignEntityType=entry&alignEntityId=${secondEntryId}`,
    );
    expect(byTarget.body.data.map((l: { id: string }) => l.id)).toEqual([foreign.id]);
    expect((await c.api(org.key, 'GET', '/integration-links?alignEntityId=nope')).status).toBe(400);
  });

  it('a project key lists only the links of its project and reads/updates/deletes only those', async () => {
    const res = await c.api(projectKey, 'GET', '/integration-links?provider=scope');
    expect(res.status).toBe(200);
    expect(res.body.data.map((l: { id: string }) => l.id)).toEqual([own.id]);
    expect((await c.api(projectKey, 'GET', `/integration-links/${own.id}`)).status).toBe(200);
    expectNotFound(await c.api(projectKey, 'GET', `/integration-links/${foreign.id}`));
    expectNotFound(await c.api(projectKey, 'GET', `/integration-links/${orgLevel.id}`));
    expectNotFound(await c.api(projectKey, 'PATCH', `/integration-links/${foreign.id}`, { alignEntityId: entryId }));
    expectNotFound(await c.api(projectKey, 'DELETE', `/integration-links/${foreign.id}`));
  });

  it('a project key may link only records of its project', async () => {
    const made = await createLink(linkBody(), projectKey);
    expect(made.alignEntityId).toBe(entryId);
    expectValidation(
      await c.api(projectKey, 'POST', '/integration-links', linkBody({ alignEntityId: secondEntryId })),
      '/alignEntityId',
    );
    expectValidation(
      await c.api(projectKey, 'POST', '/integration-links', linkBody({ alignEntityType: 'user', alignEntityId: org.adminId })),
      '/alignEntityId',
    );
    expectValidation(
      await c.api(projectKey, 'PATCH', `/integration-links/${made.id}`, { alignEntityId: secondEntryId }),
      '/alignEntityId',
    );
    // Replaying an external record linked in another project: 409, without disclosing the link.
    const clash = await c.api(projectKey, 'POST', '/integration-links', {
      provider: foreign.provider,
      externalType: foreign.externalType,
      externalId: foreign.externalId,
      alignEntityType: 'entry',
      alignEntityId: entryId,
    });
    expect(clash.status).toBe(409);
    expect(clash.body.reason).toBe('conflict');
    expect(JSON.stringify(clash.body)).not.toContain(foreign.id);
  });

  it('another organization key sees none of them and gets 404 by id', async () => {
    const list = await c.api(other.key, 'GET', '/integration-links?provider=scope');
    expect(list.body).toMatchObject({ data: [], total: 0 });
    expectNotFound(await c.api(other.key, 'GET', `/integration-links/${own.id}`));
    expectNotFound(await c.api(other.key, 'PATCH', `/integration-links/${own.id}`, { alignEntityId: foreignEntryId }));
    expectNotFound(await c.api(other.key, 'DELETE', `/integration-links/${own.id}`));
    // The same external triple in another organization is a different link.
    const theirs = await createLink(
      {
        provider: own.provider,
        externalType: own.externalType,
        externalId: own.externalId,
        alignEntityType: 'entry',
        alignEntityId: foreignEntryId,
      },
      other.key,
    );
    expect(theirs.id).not.toBe(own.id);
  });
});

describe('integration link permissions', () => {
  const routes: [string, string, string, boolean?][] = [
    ['read:project', 'GET', '/integration-links'],
    ['write:integration_link', 'POST', '/integration-links', true],
    ['read:project', 'GET', '/integration-links/:l'],
    ['write:integration_link', 'PATCH', '/integration-links/:l', true],
    ['delete:integration_link', 'DELETE', '/integration-links/:l'],
  ];
  it.each(routes)('a key lacking %s gets 403 naming it on %s %s', async (permission, method, path, withBody) => {
    const link = await createLink();
    const key = await keyLacking(c, org, permission);
    const body = withBody ? (method === 'POST' ? linkBody() : { alignEntityId: entryId }) : undefined;
    expectMissingPermission(await c.api(key, method, path.replace(':l', link.id), body), permission);
  });

  it('a developer key (default set) may create links but not delete them', async () => {
    const devId = (await c.admin.createUser(org.orgId, 'dev@links.test', 'Dev', 'developer')).id;
    await c.admin.addMember(org.projectId, devId);
    const key = (await c.admin.createKey({ user: devId, scope: 'project', project: org.projectId })).key;
    const link = await createLink(linkBody(), key);
    expectMissingPermission(await c.api(key, 'DELETE', `/integration-links/${link.id}`), 'delete:integration_link');
  });
});

describe('links made by externalRef upserts', () => {
  it('emit integration_link.created once, are listed, and point at the created record', async () => {
    const ref = { provider: 'notion', externalType: 'page', externalId: `N-${Date.now()}` };
    const first = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, {
      title: 'Synced',
      content: 'x',
      externalRef: ref,
    });
    const again = await c.api(org.key, 'POST', `/projects/${org.projectId}/wiki-pages`, {
      title: 'Synced',
      content: 'x',
      externalRef: ref,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const events = await c.events.waitFor(
      (e) => e.eventName === 'integration_link.created' && e.payload.externalId === ref.externalId,
    );
    const settled = await c.events.settle(
      (e) => e.eventName === 'integration_link.created' && e.payload.externalId === ref.externalId,
    );
    expect(settled).toHaveLength(1);
    expect(events[0].payload).toMatchObject({
      ...ref,
      alignEntityType: 'wiki_page',
      alignEntityId: first.body.id,
      organizationId: org.orgId,
    });
    const listed = await c.api(org.key, 'GET', `/integration-links?externalId=${ref.externalId}`);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({ id: events[0].payload.integrationLinkId, alignEntityType: 'wiki_page' });
  });
});
