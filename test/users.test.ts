import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { createProject, errorPaths, keyLacking, projectKey, sql } from './support/people.ts';

let c: TestCluster;
let org: SeededOrg;
let other: SeededOrg;

const USER_KEYS = ['createdAt', 'email', 'id', 'metadata', 'name', 'organizationId', 'role', 'updatedAt'];
const SECRET_HASH = '$argon2id$v=19$secret-hash-value';
const SECRET_MFA = 'JBSWY3DPEHPK3PXP-mfa-secret';
const email = (tag: string) => `${tag}-${randomUUID().slice(0, 8)}@example.test`;
const ref = () => ({ provider: 'okta', externalType: 'user', externalId: randomUUID() });

/** The answer never carries the stored password hash or MFA secret, under any key. */
function expectNoSecrets(body: unknown) {
  const text = JSON.stringify(body);
  expect(text).not.toContain(SECRET_HASH);
  expect(text).not.toContain(SECRET_MFA);
  expect(text).not.toContain('passwordHash');
  expect(text).not.toContain('mfaSecret');
}

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Users Org');
  other = await c.seedOrg('Other Users Org');
  await sql(c, 'UPDATE users SET "passwordHash" = $1, "mfaSecret" = $2', [SECRET_HASH, SECRET_MFA]);
});
afterAll(async () => c?.stop());

describe('GET /users', () => {
  it("lists the organization's users with the spec fields and no secrets", async () => {
    const dev = await c.admin.createUser(org.orgId, email('dev'), 'Dev One', 'developer');
    await sql(c, 'UPDATE users SET "passwordHash" = $1, "mfaSecret" = $2 WHERE id = $3', [SECRET_HASH, SECRET_MFA, dev.id]);
    const res = await c.api(org.key, 'GET', '/users');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'page', 'pageSize', 'total']);
    expect(res.body.data.every((u: { organizationId: string }) => u.organizationId === org.orgId)).toBe(true);
    const listed = res.body.data.find((u: { id: string }) => u.id === dev.id);
    expect(Object.keys(listed).sort()).toEqual(USER_KEYS);
    expect(listed).toMatchObject({ name: 'Dev One', role: 'developer', metadata: null });
    expectNoSecrets(res.body);
  });

  it('filters by role and refuses an unknown role', async () => {
    const res = await c.api(org.key, 'GET', '/users?role=developer');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((u: { role: string }) => u.role === 'developer')).toBe(true);
    const bad = await c.api(org.key, 'GET', '/users?role=wizard');
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toBe('validation_error');
  });

  it('answers a project-scoped key 403 scope_violation', async () => {
    const res = await c.api(await projectKey(c, org), 'GET', '/users');
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('scope_violation');
  });

  it('needs read:user', async () => {
    const res = await c.api(await keyLacking(c, org, 'read:user'), 'GET', '/users');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ reason: 'forbidden', message: expect.stringContaining('read:user') });
  });
});

describe('GET /users/:id', () => {
  it('returns a user of the organization without secrets', async () => {
    const res = await c.api(org.key, 'GET', `/users/${org.adminId}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(USER_KEYS);
    expect(res.body).toMatchObject({ id: org.adminId, role: 'admin', organizationId: org.orgId });
    expectNoSecrets(res.body);
  });

  it('shows a project key only members of its project', async () => {
    const member = await c.admin.createUser(org.orgId, email('member'), 'Member', 'user');
    const outsider = await c.admin.createUser(org.orgId, email('outsider'), 'Outsider', 'user');
    await c.admin.addMember(org.projectId, member.id);
    const key = await projectKey(c, org);
    expect((await c.api(key, 'GET', `/users/${member.id}`)).status).toBe(200);
    const res = await c.api(key, 'GET', `/users/${outsider.id}`);
    expect(res.status).toBe(404);
    expect(res.body.reason).toBe('not_found');
  });

  it("answers 404 for another organization's user and for a malformed id", async () => {
    expect((await c.api(other.key, 'GET', `/users/${org.adminId}`)).status).toBe(404);
    expect((await c.api(org.key, 'GET', '/users/not-a-uuid')).status).toBe(404);
    expect((await c.api(org.key, 'GET', `/users/${randomUUID()}`)).status).toBe(404);
  });

  it('needs read:user', async () => {
    const res = await c.api(await keyLacking(c, org, 'read:user'), 'GET', `/users/${org.adminId}`);
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('read:user');
  });
});

describe('PATCH /users/:id', () => {
  it('updates name and metadata, emits user.updated with changedFields, and audits', async () => {
    const u = await c.admin.createUser(org.orgId, email('patch'), 'Before', 'tester');
    const res = await c.api(org.key, 'PATCH', `/users/${u.id}`, { name: 'After', metadata: { team: 'qa', level: 2 } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(USER_KEYS);
    expect(res.body).toMatchObject({ id: u.id, name: 'After', metadata: { team: 'qa', level: 2 }, role: 'tester' });
    expectNoSecrets(res.body);

    const [e] = await c.events.waitFor((x) => x.eventName === 'user.updated' && x.entityId === u.id);
    expect(e).toMatchObject({ entityType: 'user', actorUserId: org.adminId, organizationId: org.orgId, schemaVersion: 1 });
    expect(Object.keys(e.payload).sort()).toEqual([
      'actorId',
      'changedFields',
      'email',
      'name',
      'occurredAt',
      'organizationId',
      'role',
      'userId',
    ]);
    expect(e.payload).toMatchObject({
      userId: u.id,
      organizationId: org.orgId,
      name: 'After',
      role: 'tester',
      actorId: org.adminId,
      changedFields: ['name', 'metadata'],
    });

    const audit = await c.api(org.key, 'GET', `/audit-events?entityType=user&action=updated`);
    const rec = audit.body.data.find((a: { entityId: string }) => a.entityId === u.id);
    expect(rec).toMatchObject({ actorId: org.adminId, metadata: { actorType: 'api_key', changedFields: ['name', 'metadata'] } });
  });

  it('emits nothing when nothing changed, and only the changed field otherwise', async () => {
    const u = await c.admin.createUser(org.orgId, email('same'), 'Same', 'user');
    expect((await c.api(org.key, 'PATCH', `/users/${u.id}`, { name: 'Same' })).status).toBe(200);
    expect((await c.api(org.key, 'PATCH', `/users/${u.id}`, { metadata: null })).status).toBe(200);
    expect((await c.api(org.key, 'PATCH', `/users/${u.id}`, { metadata: { a: 1 } })).status).toBe(200);
    const events = await c.events.settle((x) => x.eventName === 'user.updated' && x.entityId === u.id);
    expect(events.map((e) => e.payload.changedFields)).toEqual([['metadata']]);
  });

  it('refuses bad values and unknown properties (role and email cannot be changed here)', async () => {
    const cases: [unknown, string][] = [
      [{ name: '' }, '/name'],
      [{ name: '   ' }, '/name'],
      [{ name: 42 }, '/name'],
      [{ metadata: 'text' }, '/metadata'],
      [{ metadata: [1, 2] }, '/metadata'],
      [{ role: 'admin' }, '/role'],
      [{ email: 'x@example.test' }, '/email'],
    ];
    for (const [body, path] of cases) {
      const res = await c.api(org.key, 'PATCH', `/users/${org.adminId}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.reason).toBe('validation_error');
      expect(errorPaths(res.body)).toContain(path);
    }
  });

  it("is scoped like GET: 404 outside the key's organization or project", async () => {
    const outsider = await c.admin.createUser(org.orgId, email('po'), 'Out', 'user');
    expect((await c.api(other.key, 'PATCH', `/users/${org.adminId}`, { name: 'x' })).status).toBe(404);
    expect((await c.api(await projectKey(c, org), 'PATCH', `/users/${outsider.id}`, { name: 'x' })).status).toBe(404);
  });

  it('needs write:user', async () => {
    const res = await c.api(await keyLacking(c, org, 'write:user'), 'PATCH', `/users/${org.adminId}`, { name: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('write:user');
  });
});

describe('POST /users/invite', () => {
  it('invites with every field: user, membership, outbound invitation, link, user.invited', async () => {
    const p2 = await createProject(c, org.key, 'Invite target');
    const externalRef = ref();
    const body = {
      email: email('full'),
      name: 'Full Invite',
      role: 'developer',
      projectIds: [org.projectId, p2],
      sendInvite: true,
      externalRef,
      metadata: { source: 'hr', seat: 7 },
    };
    const res = await c.api(org.key, 'POST', '/users/invite', body);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created', 'inviteId', 'status', 'userId']);
    expect(res.body).toMatchObject({
      created: true,
      status: 'invited',
      userId: expect.any(String),
      inviteId: expect.any(String),
    });
    const { userId, inviteId } = res.body;

    const user = await c.api(org.key, 'GET', `/users/${userId}`);
    expect(user.body).toMatchObject({
      email: body.email,
      name: 'Full Invite',
      role: 'developer',
      metadata: body.metadata,
      organizationId: org.orgId,
    });
    for (const pid of [org.projectId, p2]) {
      const members = await c.api(org.key, 'GET', `/projects/${pid}/members`);
      expect(members.body.data.map((m: { userId: string }) => m.userId)).toContain(userId);
    }
    const [invite] = await sql(c, 'SELECT * FROM invites WHERE id = $1', [inviteId]);
    expect(invite).toMatchObject({
      userId,
      email: body.email,
      organizationId: org.orgId,
      status: 'sent',
      channel: 'email',
      invitedByUserId: org.adminId,
      apiKeyId: org.keyId,
    });
    const links = await sql(c, 'SELECT * FROM integration_links WHERE "externalId" = $1', [externalRef.externalId]);
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({
      organizationId: org.orgId,
      provider: 'okta',
      externalType: 'user',
      alignEntityType: 'user',
      alignEntityId: userId,
    });

    const [e] = await c.events.waitFor((x) => x.eventName === 'user.invited' && x.entityId === userId);
    expect(e).toMatchObject({ entityType: 'user', actorUserId: org.adminId, organizationId: org.orgId });
    expect(Object.keys(e.payload).sort()).toEqual(['actorId', 'email', 'name', 'occurredAt', 'organizationId', 'role', 'userId']);
    expect(e.payload).toMatchObject({
      userId,
      organizationId: org.orgId,
      email: body.email,
      name: 'Full Invite',
      role: 'developer',
      actorId: org.adminId,
    });
    const added = await c.events.waitFor((x) => x.eventName === 'project_member.added' && x.payload.userId === userId, 2);
    expect(added.map((x) => x.payload.projectId).sort()).toEqual([org.projectId, p2].sort());
    const linked = await c.events.waitFor(
      (x) => x.eventName === 'integration_link.created' && x.payload.externalId === externalRef.externalId,
    );
    expect(linked[0].payload).toMatchObject({ alignEntityType: 'user', alignEntityId: userId });

    const audit = await c.api(org.key, 'GET', '/audit-events?entityType=user&action=invited');
    expect(audit.body.data.find((a: { entityId: string }) => a.entityId === userId)).toMatchObject({
      metadata: { actorType: 'api_key', apiKeyId: org.keyId, status: 'invited', inviteId },
    });
  });

  it('defaults role to user and sendInvite to true; sendInvite false records no invitation', async () => {
    const a = await c.api(org.key, 'POST', '/users/invite', { email: email('defaults'), name: 'Defaults' });
    expect(a.status).toBe(201);
    expect(a.body.inviteId).toEqual(expect.any(String));
    expect((await c.api(org.key, 'GET', `/users/${a.body.userId}`)).body.role).toBe('user');
    const b = await c.api(org.key, 'POST', '/users/invite', { email: email('quiet'), name: 'Quiet', sendInvite: false });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ created: true, status: 'invited', inviteId: null });
    expect(await sql(c, 'SELECT id FROM invites WHERE "userId" = $1', [b.body.userId])).toHaveLength(0);
  });

  it('is an idempotent upsert on externalRef: same user, created false, no second event', async () => {
    const externalRef = ref();
    const first = await c.api(org.key, 'POST', '/users/invite', { email: email('ref'), name: 'Ref', externalRef });
    const again = await c.api(org.key, 'POST', '/users/invite', { email: email('ref-other'), name: 'Ref again', externalRef });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ userId: first.body.userId, inviteId: null, created: false, status: 'linked' });
    const events = await c.events.settle((x) => x.eventName === 'user.invited' && x.entityId === first.body.userId);
    expect(events).toHaveLength(1);
  });

  it('creates one user under concurrent invites with the same externalRef', async () => {
    const externalRef = ref();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        c.api(org.key, 'POST', '/users/invite', { email: email(`race${i}`), name: 'Race', externalRef }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.userId)).size).toBe(1);
  });

  it('answers an existing e-mail (any case) with the existing user, status existing', async () => {
    const address = email('exists');
    const { id } = await c.admin.createUser(org.orgId, address, 'Exists', 'tester');
    const res = await c.api(org.key, 'POST', '/users/invite', { email: address.toUpperCase(), name: 'Whoever', role: 'client' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ userId: id, inviteId: null, created: false, status: 'existing' });
    expect((await c.api(org.key, 'GET', `/users/${id}`)).body).toMatchObject({ name: 'Exists', role: 'tester' });
    expect(await c.events.settle((x) => x.eventName === 'user.invited' && x.entityId === id)).toHaveLength(0);
  });

  it('links an existing e-mail to a new externalRef (status linked, user.linked), then replays it', async () => {
    const address = email('linkme');
    const { id } = await c.admin.createUser(org.orgId, address, 'Link Me', 'user');
    const externalRef = ref();
    const res = await c.api(org.key, 'POST', '/users/invite', { email: address, name: 'Link Me', externalRef });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ userId: id, inviteId: null, created: false, status: 'linked' });
    const [e] = await c.events.waitFor((x) => x.eventName === 'user.linked' && x.entityId === id);
    expect(e.payload).toMatchObject({
      userId: id,
      email: address,
      provider: 'okta',
      externalId: externalRef.externalId,
      actorId: org.adminId,
    });
    const replay = await c.api(org.key, 'POST', '/users/invite', { email: address, name: 'Link Me', externalRef });
    expect(replay.body).toEqual({ userId: id, inviteId: null, created: false, status: 'linked' });
    expect(await c.events.settle((x) => x.eventName === 'user.linked' && x.entityId === id)).toHaveLength(1);
  });

  it('refuses admin and platform_admin roles, and every bad value', async () => {
    const good = { email: email('bad'), name: 'Bad' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, role: 'admin' }, '/role'],
      [{ ...good, role: 'platform_admin' }, '/role'],
      [{ ...good, role: 'wizard' }, '/role'],
      [{ ...good, role: 7 }, '/role'],
      [{ name: 'No mail' }, '/email'],
      [{ ...good, email: 'not-an-email' }, '/email'],
      [{ ...good, email: 12 }, '/email'],
      [{ email: good.email }, '/name'],
      [{ ...good, name: '' }, '/name'],
      [{ ...good, name: null }, '/name'],
      [{ ...good, projectIds: 'x' }, '/projectIds'],
      [{ ...good, projectIds: ['not-a-uuid'] }, '/projectIds/0'],
      [{ ...good, sendInvite: 'yes' }, '/sendInvite'],
      [{ ...good, metadata: 'x' }, '/metadata'],
      [{ ...good, externalRef: 'x' }, '/externalRef'],
      [{ ...good, externalRef: { provider: 'okta', externalType: 'user' } }, '/externalRef/externalId'],
      [{ ...good, externalRef: { provider: '', externalType: 'user', externalId: '1' } }, '/externalRef/provider'],
      [{ ...good, externalRef: { provider: 'okta', externalType: 'user', externalId: '1', extra: 1 } }, '/externalRef/extra'],
      [{ ...good, password: 'hunter2' }, '/password'],
    ];
    for (const [body, path] of cases) {
      const res = await c.api(org.key, 'POST', '/users/invite', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.reason).toBe('validation_error');
      expect(errorPaths(res.body), JSON.stringify(body)).toContain(path);
    }
    expect(await sql(c, 'SELECT id FROM users WHERE email = $1', [good.email])).toHaveLength(0);
  });

  it('refuses projectIds that are not projects of the organization (400, nothing created)', async () => {
    const address = email('foreign');
    const res = await c.api(org.key, 'POST', '/users/invite', {
      email: address,
      name: 'Foreign',
      projectIds: [org.projectId, other.projectId],
    });
    expect(res.status).toBe(400);
    expect(errorPaths(res.body)).toEqual(['/projectIds/1']);
    expect(await sql(c, 'SELECT id FROM users WHERE email = $1', [address])).toHaveLength(0);
  });

  it('needs an org-scoped key (403 scope_violation), write:user, and an admin creator', async () => {
    const body = { email: email('scope'), name: 'Scope' };
    const scoped = await c.api(await projectKey(c, org), 'POST', '/users/invite', body);
    expect(scoped.status).toBe(403);
    expect(scoped.body.reason).toBe('scope_violation');

    const lacking = await c.api(await keyLacking(c, org, 'write:user'), 'POST', '/users/invite', body);
    expect(lacking.status).toBe(403);
    expect(lacking.body).toMatchObject({ reason: 'forbidden', message: expect.stringContaining('write:user') });

    // An org key whose creator is no longer an admin: refused (its permissions narrow to the new role's too).
    const former = await c.admin.createUser(org.orgId, email('former'), 'Former Admin', 'admin');
    const { key } = await c.admin.createKey({ user: former.id, scope: 'organization' });
    await c.admin.setRole(former.id, 'manager');
    const demoted = await c.api(key, 'POST', '/users/invite', body);
    expect(demoted.status).toBe(403);
    expect(demoted.body.reason).toBe('forbidden');
  });
});

describe('POST /users/bulk-invite', () => {
  it('answers per item, counts successes and failures, defaults sendInvite to false, emits user.bulk_invited', async () => {
    const existing = email('bulk-existing');
    const { id: existingId } = await c.admin.createUser(org.orgId, existing, 'Already', 'user');
    const fresh = email('bulk-new');
    const externalRef = ref();
    const res = await c.api(org.key, 'POST', '/users/bulk-invite', {
      invites: [
        { email: fresh, name: 'Bulk New', role: 'tester', projectIds: [org.projectId], metadata: { row: 1 } },
        { email: existing, name: 'Already' },
        { email: 'broken', name: 'Broken' },
        { email: email('bulk-admin'), name: 'Admin?', role: 'admin' },
        { email: email('bulk-foreign'), name: 'Foreign', projectIds: [other.projectId] },
        { email: email('bulk-ref'), name: 'With ref', externalRef },
        'not an object',
      ],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['failureCount', 'results', 'successCount']);
    expect(res.body.successCount).toBe(3);
    expect(res.body.failureCount).toBe(4);
    const r = res.body.results;
    expect(r).toHaveLength(7);
    for (const item of r) expect(Object.keys(item).sort()).toEqual(['email', 'error', 'inviteId', 'status', 'userId']);
    expect(r[0]).toMatchObject({ email: fresh, status: 'invited', userId: expect.any(String), inviteId: null, error: null });
    expect(r[1]).toEqual({ email: existing, status: 'existing', userId: existingId, inviteId: null, error: null });
    expect(r[2]).toMatchObject({
      email: 'broken',
      status: 'error',
      userId: null,
      inviteId: null,
      error: expect.stringContaining('/email'),
    });
    expect(r[3]).toMatchObject({ status: 'error', error: expect.stringContaining('/role') });
    expect(r[4]).toMatchObject({ status: 'error', error: expect.stringContaining('/projectIds/0') });
    expect(r[5]).toMatchObject({ status: 'invited', userId: expect.any(String), error: null });
    expect(r[6]).toMatchObject({ email: '', status: 'error', error: expect.any(String) });

    expect((await c.api(org.key, 'GET', `/users/${r[0].userId}`)).body).toMatchObject({ role: 'tester', metadata: { row: 1 } });
    const members = await c.api(org.key, 'GET', `/projects/${org.projectId}/members?pageSize=100`);
    expect(members.body.data.map((m: { userId: string }) => m.userId)).toContain(r[0].userId);
    expect(await sql(c, 'SELECT id FROM invites WHERE "userId" = $1', [r[0].userId])).toHaveLength(0);
    expect(await sql(c, 'SELECT id FROM users WHERE email = $1', ['broken'])).toHaveLength(0);

    const [e] = await c.events.waitFor((x) => x.eventName === 'user.bulk_invited' && x.payload.successCount === 3);
    expect(e).toMatchObject({ actorUserId: org.adminId, organizationId: org.orgId });
    expect(e.payload).toMatchObject({ organizationId: org.orgId, actorId: org.adminId, successCount: 3, failureCount: 4 });
    expect((e.payload.users as { userId: string }[]).map((u) => u.userId)).toEqual([r[0].userId, existingId, r[5].userId]);
    expect(await c.events.settle((x) => x.eventName === 'user.invited' && x.entityId === r[0].userId)).toHaveLength(0);
  });

  it('records invitations when sendInvite is true, and replays an externalRef as linked', async () => {
    const externalRef = ref();
    const first = await c.api(org.key, 'POST', '/users/bulk-invite', {
      sendInvite: true,
      invites: [{ email: email('b1'), name: 'B1', externalRef }],
    });
    expect(first.body.results[0]).toMatchObject({ status: 'invited', inviteId: expect.any(String) });
    const again = await c.api(org.key, 'POST', '/users/bulk-invite', {
      sendInvite: true,
      invites: [{ email: email('b2'), name: 'B2', externalRef }],
    });
    expect(again.body.results[0]).toMatchObject({ status: 'linked', userId: first.body.results[0].userId, inviteId: null });
  });

  it('takes 1 to 50 items and refuses unknown properties', async () => {
    const item = () => ({ email: email('n'), name: 'N' });
    const empty = await c.api(org.key, 'POST', '/users/bulk-invite', { invites: [] });
    expect(empty.status).toBe(400);
    expect(errorPaths(empty.body)).toContain('/invites');
    const tooMany = await c.api(org.key, 'POST', '/users/bulk-invite', { invites: Array.from({ length: 51 }, item) });
    expect(tooMany.status).toBe(400);
    for (const [body, path] of [
      [{}, '/invites'],
      [{ invites: 'x' }, '/invites'],
      [{ invites: [item()], sendInvite: 'no' }, '/sendInvite'],
      [{ invites: [item()], extra: true }, '/extra'],
    ] as const) {
      const res = await c.api(org.key, 'POST', '/users/bulk-invite', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorPaths(res.body)).toContain(path);
    }
    const fifty = await c.api(org.key, 'POST', '/users/bulk-invite', { invites: Array.from({ length: 50 }, item) });
    expect(fifty.status).toBe(200);
    expect(fifty.body).toMatchObject({ successCount: 50, failureCount: 0 });
  });

  it('needs an org-scoped key and write:user', async () => {
    const body = { invites: [{ email: email('s'), name: 'S' }] };
    const scoped = await c.api(await projectKey(c, org), 'POST', '/users/bulk-invite', body);
    expect(scoped.status).toBe(403);
    expect(scoped.body.reason).toBe('scope_violation');
    const lacking = await c.api(await keyLacking(c, org, 'write:user'), 'POST', '/users/bulk-invite', body);
    expect(lacking.status).toBe(403);
    expect(lacking.body.message).toContain('write:user');
  });
});
