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

const entryBody = { type: 'feedback', title: 'Nice', description: 'the new page' };

async function createEntry(projectId = org.projectId) {
  const res = await c.api(org.key, 'POST', `/projects/${projectId}/entries`, entryBody);
  expect(res.status).toBe(201);
  return res.body as Record<string, Json>;
}

async function comment(entryId: string, body: Record<string, unknown> = { content: 'Looks good' }, key = org.key) {
  const res = await c.api(key, 'POST', `/entries/${entryId}/comments`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Record<string, Json>;
}

const attachmentMinimal = { fileName: 'shot.png', fileSize: '20480', fileType: 'image/png', objectPath: 'org/a/shot.png' };

/** Every field of the registration body with a valid value. */
const attachmentEveryField = {
  ...attachmentMinimal,
  category: 'screenshot',
  isAiGenerated: 'false',
  sourceAssistantUploadId: 'up_1',
  sourceAssistantConversationId: 'conv_1',
  linkedByUserId: 'u_1',
  addedVia: 'api',
  attachmentSource: 'upload',
  evidenceSummary: 'shows the bug',
  removedAt: null,
  removedByUserId: null,
  removedVia: null,
  replacementAttachmentId: null,
  replacementOfAttachmentId: 'att_0',
  lifecycleReason: 'initial',
  attachmentStatus: 'active',
};

async function attach(entryId: string, body: Record<string, unknown> = attachmentMinimal, key = org.key) {
  const res = await c.api(key, 'POST', `/entries/${entryId}/attachments`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Record<string, Json>;
}

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Comments Org');
  other = await c.seedOrg('Other Org');
  secondProjectId = (await c.api(org.key, 'POST', '/projects', { name: 'Second', description: 'second' })).body.id;
});
afterAll(async () => c?.stop());

describe('comments', () => {
  it('creates with content answered as body, authorId from the key, and every field', async () => {
    const entry = await createEntry();
    const made = await comment(entry.id, { content: 'First!', isInternal: 'true', isAiGenerated: null });
    expect(made).toEqual({
      id: expect.any(String),
      entryId: entry.id,
      body: 'First!',
      authorId: org.adminId,
      isInternal: 'true',
      isAiGenerated: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(made).not.toHaveProperty('content');
    expect((await c.api(org.key, 'GET', `/comments/${made.id}`)).body).toEqual(made);
  });

  const bad: BadCase[] = [
    { name: 'missing content', body: { isInternal: 'true' }, path: '/content' },
    { name: 'empty content', body: { content: '' }, path: '/content' },
    { name: 'content a number', body: { content: 5 }, path: '/content' },
    { name: 'content null', body: { content: null }, path: '/content' },
    { name: 'isInternal a boolean', body: { content: 'x', isInternal: true }, path: '/isInternal' },
    { name: 'isAiGenerated a number', body: { content: 'x', isAiGenerated: 1 }, path: '/isAiGenerated' },
    { name: 'body instead of content', body: { body: 'x' }, path: '/body' },
    { name: 'authorId in the body', body: { content: 'x', authorId: '00000000-0000-4000-8000-000000000000' }, path: '/authorId' },
  ];
  it.each(bad)('create rejects $name with 400 at $path', async ({ body, path }) => {
    const entry = await createEntry();
    expectValidation(await c.api(org.key, 'POST', `/entries/${entry.id}/comments`, body), path);
  });

  const badUpdate: BadCase[] = [
    { name: 'unknown property', body: { text: 'x' }, path: '/text' },
    { name: 'empty content', body: { content: '' }, path: '/content' },
    { name: 'isInternal a boolean', body: { isInternal: false }, path: '/isInternal' },
    { name: 'entryId (immutable)', body: { entryId: '00000000-0000-4000-8000-000000000000' }, path: '/entryId' },
  ];
  it.each(badUpdate)('update rejects $name with 400 at $path', async ({ body, path }) => {
    const made = await comment((await createEntry()).id);
    expectValidation(await c.api(org.key, 'PATCH', `/comments/${made.id}`, body), path);
  });

  it('updates only supplied fields (every field of the update body)', async () => {
    const made = await comment((await createEntry()).id, { content: 'v1', isInternal: 'false' });
    const res = await c.api(org.key, 'PATCH', `/comments/${made.id}`, { content: 'v2' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...made, body: 'v2', updatedAt: expect.any(String) });
    const all = await c.api(org.key, 'PATCH', `/comments/${made.id}`, { content: 'v3', isInternal: null, isAiGenerated: 'true' });
    expect(all.body).toMatchObject({ body: 'v3', isInternal: null, isAiGenerated: 'true' });
  });

  it('lists the comments of an entry newest first; deletes with 204 then 404', async () => {
    const entry = await createEntry();
    const a = await comment(entry.id, { content: 'a' });
    const b = await comment(entry.id, { content: 'b' });
    const list = await c.api(org.key, 'GET', `/entries/${entry.id}/comments`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, pageSize: 25, total: 2 });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
    expect((await c.api(org.key, 'DELETE', `/comments/${a.id}`)).status).toBe(204);
    expectNotFound(await c.api(org.key, 'GET', `/comments/${a.id}`));
    expectNotFound(await c.api(org.key, 'DELETE', `/comments/${a.id}`));
    expect((await c.api(org.key, 'GET', `/entries/${entry.id}/comments`)).body.total).toBe(1);
  });

  it('answers 404 for an unknown or non-UUID entry or comment', async () => {
    expectNotFound(await c.api(org.key, 'GET', '/entries/00000000-0000-4000-8000-000000000000/comments'));
    expectNotFound(await c.api(org.key, 'POST', '/entries/nope/comments', { content: 'x' }));
    expectNotFound(await c.api(org.key, 'GET', '/comments/nope'));
    expectNotFound(await c.api(org.key, 'PATCH', '/comments/00000000-0000-4000-8000-000000000000', { content: 'x' }));
  });

  it('emits entry.commented with the entry fields and the comment, once per comment; edits and deletes emit nothing', async () => {
    const entry = await createEntry();
    const made = await comment(entry.id, { content: 'Ping', isInternal: 'false' });
    const e = await eventOf(c, 'entry.commented', entry.id);
    expect(e).toMatchObject({ entityType: 'entry', entityId: entry.id, actorUserId: org.adminId, projectId: org.projectId });
    expect(e.payload).toEqual({
      entryId: entry.id,
      projectId: org.projectId,
      title: entryBody.title,
      type: entryBody.type,
      status: 'open',
      commentId: made.id,
      authorId: org.adminId,
      body: 'Ping',
      isInternal: 'false',
      occurredAt: e.occurredAt,
    });
    await c.api(org.key, 'PATCH', `/comments/${made.id}`, { content: 'Pong' });
    await c.api(org.key, 'DELETE', `/comments/${made.id}`);
    const names = (await settledEventsOf(c, entry.id)).map((x) => x.eventName);
    expect(names).toEqual(['entry.created', 'entry.commented']);
    expect(await settledEventsOf(c, made.id)).toEqual([]);
  });

  it('audits created, updated and deleted', async () => {
    const made = await comment((await createEntry()).id);
    await c.api(org.key, 'PATCH', `/comments/${made.id}`, { content: 'edited' });
    await c.api(org.key, 'DELETE', `/comments/${made.id}`);
    const audits = await auditOf(c, org.key, 'comment', made.id);
    expect(audits.map((a) => a.action).sort()).toEqual(['created', 'deleted', 'updated']);
    for (const a of audits)
      expect(a.metadata).toMatchObject({ actorType: 'api_key', apiKeyId: org.keyId, entryId: made.entryId });
  });
});

describe('attachments', () => {
  it('registers with every field; entryId and uploadedById from the server', async () => {
    const entry = await createEntry();
    const made = await attach(entry.id, attachmentEveryField);
    expect(made).toMatchObject({
      ...attachmentEveryField,
      id: expect.any(String),
      entryId: entry.id,
      uploadedById: org.adminId,
      createdAt: expect.any(String),
    });
    expect((await c.api(org.key, 'GET', `/attachments/${made.id}`)).body).toEqual(made);
  });

  it('keeps fileSize a decimal string beyond 2^53 and defaults optional fields to null', async () => {
    const made = await attach((await createEntry()).id, {
      ...attachmentMinimal,
      fileSize: '9007199254740993',
      fileType: 'text/plain; charset=utf-8',
    });
    expect(made).toMatchObject({ fileSize: '9007199254740993', fileType: 'text/plain; charset=utf-8', category: null });
    const removed = await attach((await createEntry()).id, { ...attachmentMinimal, removedAt: '2026-05-01T00:00:00.000Z' });
    expect(removed.removedAt).toBe('2026-05-01T00:00:00.000Z');
  });

  const bad: BadCase[] = [
    { name: 'missing fileName', body: { fileSize: '1', fileType: 'image/png', objectPath: 'p' }, path: '/fileName' },
    { name: 'missing fileSize', body: { fileName: 'a', fileType: 'image/png', objectPath: 'p' }, path: '/fileSize' },
    { name: 'missing fileType', body: { fileName: 'a', fileSize: '1', objectPath: 'p' }, path: '/fileType' },
    { name: 'missing objectPath', body: { fileName: 'a', fileSize: '1', fileType: 'image/png' }, path: '/objectPath' },
    { name: 'fileSize a number', body: { ...attachmentMinimal, fileSize: 20480 }, path: '/fileSize' },
    { name: 'fileSize not decimal', body: { ...attachmentMinimal, fileSize: '20kb' }, path: '/fileSize' },
    { name: 'fileSize negative', body: { ...attachmentMinimal, fileSize: '-1' }, path: '/fileSize' },
    { name: 'fileSize fractional', body: { ...attachmentMinimal, fileSize: '1.5' }, path: '/fileSize' },
    { name: 'fileType not a MIME type', body: { ...attachmentMinimal, fileType: 'png' }, path: '/fileType' },
    { name: 'fileType with spaces', body: { ...attachmentMinimal, fileType: 'image/ png' }, path: '/fileType' },
    { name: 'empty fileName', body: { ...attachmentMinimal, fileName: '' }, path: '/fileName' },
    { name: 'objectPath null', body: { ...attachmentMinimal, objectPath: null }, path: '/objectPath' },
    { name: 'category a number', body: { ...attachmentMinimal, category: 1 }, path: '/category' },
    { name: 'evidenceSummary an object', body: { ...attachmentMinimal, evidenceSummary: {} }, path: '/evidenceSummary' },
    { name: 'removedAt not a timestamp', body: { ...attachmentMinimal, removedAt: 'later' }, path: '/removedAt' },
    { name: 'attachmentStatus null', body: { ...attachmentMinimal, attachmentStatus: null }, path: '/attachmentStatus' },
    { name: 'unknown property', body: { ...attachmentMinimal, checksum: 'abc' }, path: '/checksum' },
    {
      name: 'uploadedById in the body',
      body: { ...attachmentMinimal, uploadedById: '00000000-0000-4000-8000-000000000000' },
      path: '/uploadedById',
    },
  ];
  it.each(bad)('registration rejects $name with 400 at $path', async ({ body, path }) => {
    const entry = await createEntry();
    expectValidation(await c.api(org.key, 'POST', `/entries/${entry.id}/attachments`, body), path);
  });

  it('lists newest first, deletes with 204 then 404, audits every write, and has no PATCH (405)', async () => {
    const entry = await createEntry();
    const a = await attach(entry.id);
    const b = await attach(entry.id, { ...attachmentMinimal, fileName: 'b.png' });
    const list = await c.api(org.key, 'GET', `/entries/${entry.id}/attachments`);
    expect(list.body).toMatchObject({ total: 2 });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
    const patch = await c.api(org.key, 'PATCH', `/attachments/${a.id}`, { fileName: 'x' });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toContain('DELETE');
    expect((await c.api(org.key, 'DELETE', `/attachments/${a.id}`)).status).toBe(204);
    expectNotFound(await c.api(org.key, 'GET', `/attachments/${a.id}`));
    expectNotFound(await c.api(org.key, 'DELETE', `/attachments/${a.id}`));
    const audits = await auditOf(c, org.key, 'attachment', a.id);
    expect(audits.map((x) => x.action).sort()).toEqual(['created', 'deleted']);
    for (const x of audits) expect(x.metadata).toMatchObject({ actorType: 'api_key', apiKeyId: org.keyId });
  });

  it('deleting the entry removes its comments and attachments', async () => {
    const entry = await createEntry();
    const com = await comment(entry.id);
    const att = await attach(entry.id);
    expect((await c.api(org.key, 'DELETE', `/entries/${entry.id}`)).status).toBe(204);
    expectNotFound(await c.api(org.key, 'GET', `/comments/${com.id}`));
    expectNotFound(await c.api(org.key, 'GET', `/attachments/${att.id}`));
  });
});

describe('comment and attachment scope and tenancy', () => {
  let projectKey: string;
  let foreignEntry: Record<string, Json>;
  let foreignComment: Record<string, Json>;
  let foreignAttachment: Record<string, Json>;
  let ownEntry: Record<string, Json>;
  let ownComment: Record<string, Json>;
  let ownAttachment: Record<string, Json>;

  beforeAll(async () => {
    projectKey = (await c.admin.createKey({ user: org.adminId, scope: 'project', project: org.projectId })).key;
    foreignEntry = await createEntry(secondProjectId);
    foreignComment = await comment(foreignEntry.id);
    foreignAttachment = await attach(foreignEntry.id);
    ownEntry = await createEntry();
    ownComment = await comment(ownEntry.id);
    ownAttachment = await attach(ownEntry.id);
  });

  it('a project key works on comments and attachments of its project', async () => {
    expect((await c.api(projectKey, 'GET', `/entries/${ownEntry.id}/comments`)).status).toBe(200);
    const made = await comment(ownEntry.id, { content: 'scoped' }, projectKey);
    expect((await c.api(projectKey, 'GET', `/comments/${ownComment.id}`)).status).toBe(200);
    expect((await c.api(projectKey, 'PATCH', `/comments/${made.id}`, { content: 'again' })).status).toBe(200);
    expect((await c.api(projectKey, 'DELETE', `/comments/${made.id}`)).status).toBe(204);
    expect((await c.api(projectKey, 'GET', `/entries/${ownEntry.id}/attachments`)).status).toBe(200);
    const att = await attach(ownEntry.id, attachmentMinimal, projectKey);
    expect((await c.api(projectKey, 'GET', `/attachments/${ownAttachment.id}`)).status).toBe(200);
    expect((await c.api(projectKey, 'DELETE', `/attachments/${att.id}`)).status).toBe(204);
  });

  it('a project key gets 404 on every comment and attachment route of another project', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', `/entries/${foreignEntry.id}/comments`],
      ['POST', `/entries/${foreignEntry.id}/comments`, { content: 'x' }],
      ['GET', `/comments/${foreignComment.id}`],
      ['PATCH', `/comments/${foreignComment.id}`, { content: 'x' }],
      ['DELETE', `/comments/${foreignComment.id}`],
      ['GET', `/entries/${foreignEntry.id}/attachments`],
      ['POST', `/entries/${foreignEntry.id}/attachments`, attachmentMinimal],
      ['GET', `/attachments/${foreignAttachment.id}`],
      ['DELETE', `/attachments/${foreignAttachment.id}`],
    ];
    for (const [m, p, b] of calls) expectNotFound(await c.api(projectKey, m, p, b));
  });

  it('another organization key gets 404 on every comment and attachment route', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', `/entries/${ownEntry.id}/comments`],
      ['POST', `/entries/${ownEntry.id}/comments`, { content: 'x' }],
      ['GET', `/comments/${ownComment.id}`],
      ['PATCH', `/comments/${ownComment.id}`, { content: 'x' }],
      ['DELETE', `/comments/${ownComment.id}`],
      ['GET', `/entries/${ownEntry.id}/attachments`],
      ['POST', `/entries/${ownEntry.id}/attachments`, attachmentMinimal],
      ['GET', `/attachments/${ownAttachment.id}`],
      ['DELETE', `/attachments/${ownAttachment.id}`],
    ];
    for (const [m, p, b] of calls) expectNotFound(await c.api(other.key, m, p, b));
    expect((await c.api(org.key, 'GET', `/comments/${ownComment.id}`)).status).toBe(200);
    expect((await c.api(org.key, 'GET', `/attachments/${ownAttachment.id}`)).status).toBe(200);
  });
});

describe('comment and attachment permissions', () => {
  const routes: [string, string, string, unknown?][] = [
    ['read:comment', 'GET', '/entries/:e/comments'],
    ['write:comment', 'POST', '/entries/:e/comments', { content: 'x' }],
    ['read:comment', 'GET', '/comments/:c'],
    ['write:comment', 'PATCH', '/comments/:c', { content: 'x' }],
    ['delete:comment', 'DELETE', '/comments/:c'],
    ['read:attachment', 'GET', '/entries/:e/attachments'],
    ['write:attachment', 'POST', '/entries/:e/attachments', attachmentMinimal],
    ['read:attachment', 'GET', '/attachments/:a'],
    ['delete:attachment', 'DELETE', '/attachments/:a'],
  ];
  it.each(routes)('a key lacking %s gets 403 naming it on %s %s', async (permission, method, path, body) => {
    const entry = await createEntry();
    const com = await comment(entry.id);
    const att = await attach(entry.id);
    const key = await keyLacking(c, org, permission);
    const url = path.replace(':e', entry.id).replace(':c', com.id).replace(':a', att.id);
    expectMissingPermission(await c.api(key, method, url, body), permission);
  });
});
