import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { createReceivers, type Receiver } from './support/receiver.ts';
import { until } from './support/poll.ts';

// The integrator portal's access (docs/portal.md): a key mints a one-time link, the link opens once
// into a cookie session, and the portal's API runs the v1 webhook routes for that session's actor,
// narrowed to its access and scope, writes only with its CSRF token. Real processes throughout.
const receivers = createReceivers();
let c: TestCluster;
let org: SeededOrg;
let origin: string;
let receiver: Receiver;

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Portal');
  origin = new URL(c.baseUrl).origin;
  receiver = await receivers.start();
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  await c?.stop();
});

interface Session {
  id: string;
  cookie: string;
  csrf: string;
  setCookies: string[];
  csp: string;
}

async function mint(body: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const res = await c.api(org.key, 'POST', '/portal-sessions', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const url = res.body.url as string;
  expect(url).toMatch(/^\/portal\/start\?token=ptl_[A-Za-z0-9_-]{43}$/);
  return { id: res.body.id as string, url };
}

const open = (url: string) => fetch(`${origin}${url}`, { redirect: 'manual' });

async function session(body: Record<string, unknown> = {}): Promise<Session> {
  const link = await mint(body);
  const res = await open(link.url);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/portal/');
  const setCookies = res.headers.getSetCookie();
  const value = (name: string) => setCookies.find((s) => s.startsWith(`${name}=`))!.split(';')[0];
  return {
    id: link.id,
    cookie: `${value('portal_session')}; ${value('portal_csrf')}`,
    csrf: value('portal_csrf').split('=')[1],
    setCookies,
    csp: res.headers.get('content-security-policy') ?? '',
  };
}

async function portal(
  s: Session | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${origin}/portal/api/v1${path}`, {
    method,
    headers: {
      ...(s ? { cookie: s.cookie } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> };
}

/** A request with headers fetch will not send as given (Host). */
function rawRequest(method: string, path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const write = (s: Session, method: string, path: string, body?: unknown) =>
  portal(s, method, path, body, { 'x-portal-csrf': s.csrf, origin });

describe('portal sessions', () => {
  it('opens a link once into an HttpOnly session cookie, with a strict CSP; the link cannot be used again', async () => {
    const { url } = await mint();
    const first = await open(url);
    expect(first.status).toBe(303);
    const cookies = first.headers.getSetCookie();
    const sessionCookie = cookies.find((s) => s.startsWith('portal_session='))!;
    expect(sessionCookie).toMatch(
      /^portal_session=pts_[A-Za-z0-9_-]{43}; Path=\/portal; Max-Age=3[56]\d\d; HttpOnly; SameSite=Lax$/,
    );
    expect(cookies.find((s) => s.startsWith('portal_csrf='))).not.toContain('HttpOnly');
    const csp = first.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(first.headers.get('referrer-policy')).toBe('no-referrer');

    const again = await open(url);
    expect(again.status).toBe(401);
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(await again.text()).toContain('used already or has expired');
    expect((await open('/portal/start?token=ptl_nope')).status).toBe(401);
  });

  it("runs the webhook routes for the session's actor: reads without CSRF, writes only with it and from this origin", async () => {
    const s = await session();
    const info = await fetch(`${origin}/portal/session`, { headers: { cookie: s.cookie } });
    expect(await info.json()).toMatchObject({ access: 'manage', scope: 'organization', organizationId: org.orgId });

    expect((await portal(s, 'GET', '/webhooks')).status).toBe(200);
    expect((await portal(s, 'GET', '/webhooks/event-types')).status).toBe(200);
    expect((await portal(undefined, 'GET', '/webhooks')).status).toBe(401);

    const hook = { destinationUrl: receiver.url, eventNames: ['entry.created'] };
    const noCsrf = await portal(s, 'POST', '/webhooks', hook, { origin });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.message).toContain('CSRF');
    const wrongCsrf = await portal(s, 'POST', '/webhooks', hook, { 'x-portal-csrf': `ptc_${'x'.repeat(43)}`, origin });
    expect(wrongCsrf.status).toBe(403);
    const otherOrigin = await portal(s, 'POST', '/webhooks', hook, { 'x-portal-csrf': s.csrf, origin: 'https://evil.example' });
    expect(otherOrigin.status).toBe(403);
    // The origin is the gateway's public one (here, in development, the loopback host it is reached at),
    // not one made of the request's Host header: a made-up Host with a matching Origin is refused too.
    const forgedHost = `evil.example:${new URL(origin).port}`;
    const viaForgedHost = await rawRequest('POST', '/portal/api/v1/webhooks', JSON.stringify(hook), {
      host: forgedHost,
      origin: `http://${forgedHost}`,
      cookie: s.cookie,
      'x-portal-csrf': s.csrf,
      'content-type': 'application/json',
    });
    expect([viaForgedHost.status, viaForgedHost.body]).toEqual([403, expect.stringContaining('own origin')]);

    const created = await write(s, 'POST', '/webhooks', hook);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.hmacSecret).toMatch(/^whsec_/);
    const id = created.body.id as string;
    // The same write as the API's: audited for the key that minted the session, naming the session.
    const viaKey = await c.api(org.key, 'POST', '/webhooks', hook);
    type Audit = { entityId: string; metadata: Record<string, unknown> | null };
    const audits = () =>
      c
        .api(org.key, 'GET', `/audit-events?entityType=webhook_subscription&action=created&limit=100`)
        .then((r) => r.body.data as Audit[]);
    const recorded = await until(audits, (all) => [id, viaKey.body.id].every((e) => all.some((a) => a.entityId === e)));
    const record = recorded.find((a) => a.entityId === id);
    expect(record?.metadata).toMatchObject({ actorType: 'api_key', portalSessionId: s.id });
    // The same call with the key names no session.
    const keyRecord = recorded.find((a) => a.entityId === viaKey.body.id);
    expect(keyRecord?.metadata?.apiKeyId).toBe(record?.metadata?.apiKeyId);
    expect(keyRecord?.metadata).not.toHaveProperty('portalSessionId');
    expect((await write(s, 'PATCH', `/webhooks/${id}`, { enabled: false })).body.enabled).toBe(false);
    expect((await write(s, 'POST', `/webhooks/${id}/rotate-secret`, {})).body.hmacSecret).toMatch(/^whsec_/);
    expect((await write(s, 'DELETE', `/webhooks/${id}`)).status).toBe(204);

    // The portal offers the webhook pages' routes only: no minting of sessions, no settings, no projects.
    expect((await write(s, 'POST', '/portal-sessions', {})).status).toBe(404);
    expect((await write(s, 'PATCH', '/portal-settings', { frameAncestors: [] })).status).toBe(404);
    expect((await portal(s, 'GET', '/projects')).status).toBe(404);
    const minted = await c.api(org.key, 'GET', '/audit-events?entityType=portal_session&action=created');
    expect((minted.body.data as unknown[]).length).toBeGreaterThanOrEqual(2);
  });

  it('a read-only session reads and cannot write', async () => {
    const s = await session({ access: 'read-only' });
    expect((await portal(s, 'GET', '/webhooks')).status).toBe(200);
    const refused = await write(s, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe('forbidden');
  });

  it("a project's session does not see the organization's endpoints", async () => {
    const orgWide = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
    expect(orgWide.status).toBe(201);
    const s = await session({ projectId: org.projectId });
    const info = await (await fetch(`${origin}/portal/session`, { headers: { cookie: s.cookie } })).json();
    expect(info).toMatchObject({ scope: 'project', projectId: org.projectId });
    const list = await portal(s, 'GET', '/webhooks');
    expect(list.status).toBe(403);
    expect(list.body.reason).toBe('scope_violation');
    expect((await portal(s, 'GET', `/webhooks/${orgWide.body.id as string}`)).status).toBe(403);
    expect((await portal(s, 'GET', '/webhooks/event-types')).status).toBe(200);
  });

  it('an expired session is refused', async () => {
    const s = await session({ lifetimeSeconds: 5 });
    expect((await portal(s, 'GET', '/webhooks')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 5_500));
    const expired = await portal(s, 'GET', '/webhooks');
    expect(expired.status).toBe(401);
    expect(expired.body.message).toContain('expired');
  }, 20_000);

  it("frames the portal only for the organization's allowed origins", async () => {
    expect((await c.api(org.key, 'GET', '/portal-settings')).body).toEqual({ frameAncestors: [], updatedAt: null });
    const bad = await c.api(org.key, 'PATCH', '/portal-settings', { frameAncestors: ['https://*.example.com'] });
    expect(bad.status).toBe(400);
    const saved = await c.api(org.key, 'PATCH', '/portal-settings', { frameAncestors: ['https://app.example.com'] });
    expect(saved.status).toBe(200);
    expect(saved.body.frameAncestors).toEqual(['https://app.example.com']);
    const s = await session();
    expect(s.csp).toContain("frame-ancestors 'self' https://app.example.com");
    const page = await fetch(`${origin}/portal/`, { headers: { cookie: s.cookie } });
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://app.example.com");
    // Without a session, no other page may frame it.
    const anonymous = await fetch(`${origin}/portal/`);
    expect(anonymous.status).toBe(200); // the app, which says to open a portal link
    expect(anonymous.headers.get('content-security-policy')).toMatch(/frame-ancestors 'self'$/);
    const audit = await c.api(org.key, 'GET', '/audit-events?entityType=portal_settings');
    expect((audit.body.data as unknown[]).length).toBe(1);
  });

  it("answers 403 forbidden while the organization's API is off (docs/portal.md, “The portal’s API”), both minting and using a session", async () => {
    const off = await c.seedOrg('Portal API off');
    const minted = await c.api(off.key, 'POST', '/portal-sessions', {});
    expect(minted.status).toBe(201);
    const opened = await open(minted.body.url as string);
    expect(opened.status).toBe(303);
    const cookie = opened.headers
      .getSetCookie()
      .map((v) => v.split(';')[0])
      .join('; ');
    const s = { id: minted.body.id as string, cookie, csrf: '', setCookies: [], csp: '' };
    expect((await portal(s, 'GET', '/webhooks')).status).toBe(200);
    await c.admin.setApiEnabled(off.orgId, false);
    try {
      // The delivery service remembers a confirmed actor for up to 5 s (docs/security.md): then the core's answer.
      const refused = await until(
        () => portal(s, 'GET', '/webhooks'),
        (r) => r.status !== 200,
      );
      expect([refused.status, refused.body.reason, refused.body.message]).toEqual([
        403,
        'forbidden',
        'the v1 API is disabled for this organization',
      ]);
      const mint = await c.api(off.key, 'POST', '/portal-sessions', {});
      expect([mint.status, mint.body.reason]).toEqual([403, 'forbidden']);
    } finally {
      await c.admin.setApiEnabled(off.orgId, true);
    }
  });

  it('is minted only by an organization key with write:webhook, with a valid body', async () => {
    expect((await c.api(org.key, 'POST', '/portal-sessions', { access: 'admin' })).status).toBe(400);
    expect((await c.api(org.key, 'POST', '/portal-sessions', { lifetimeSeconds: 1 })).status).toBe(400);
    expect((await c.api(undefined, 'POST', '/portal-sessions', {})).status).toBe(401);
  });
});

describe('ending a session (docs/portal.md, “Ending a session”)', () => {
  type Listed = {
    id: string;
    apiKeyId: string;
    access: string;
    scope: string;
    openedAt: string | null;
    expiresAt: string | null;
  };
  const listed = async (key = org.key) => {
    const res = await c.api(key, 'GET', '/portal-sessions?pageSize=100');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Listed[];
  };
  const sessionInfo = (s: Session) => fetch(`${origin}/portal/session`, { headers: { cookie: s.cookie } });
  type Audit = { entityId: string; action: string; metadata: Record<string, unknown> | null };
  const auditOf = (action: string, id: string) =>
    until(
      () =>
        c
          .api(org.key, 'GET', `/audit-events?entityType=portal_session&action=${action}&limit=100`)
          .then((r) => r.body.data as Audit[]),
      (all) => all.some((a) => a.entityId === id),
    ).then((all) => all.find((a) => a.entityId === id)!);

  it("a key ends a session by API: its next call, page or API, is 401 as an expired one's; ending it again is 404", async () => {
    const s = await session({ access: 'read-only', lifetimeSeconds: 600 });
    expect((await portal(s, 'GET', '/webhooks')).status).toBe(200);
    const mine = (await listed()).find((l) => l.id === s.id);
    expect(mine).toMatchObject({ apiKeyId: org.keyId, access: 'read-only', scope: 'organization', openedAt: expect.any(String) });
    expect(Date.parse(mine!.expiresAt!) - Date.parse(mine!.openedAt!)).toBe(600_000);

    // Another key of the organization may end it (organization-wide, as minting is); the Idempotency-Key of
    // a DELETE is not replayed (POSTs only, docs/decisions-api.md), so its repeat meets the ended session.
    const { key: other } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    const ended = await c.api(other, 'DELETE', `/portal-sessions/${s.id}`, undefined, { 'idempotency-key': `end-${s.id}` });
    expect([ended.status, ended.body]).toEqual([204, undefined]);
    const api = await portal(s, 'GET', '/webhooks');
    expect([api.status, api.body.reason]).toEqual([401, 'unauthorized']);
    expect(api.body.message).toContain('expired');
    expect((await sessionInfo(s)).status).toBe(401);
    expect((await listed()).map((l) => l.id)).not.toContain(s.id);
    const again = await c.api(other, 'DELETE', `/portal-sessions/${s.id}`, undefined, { 'idempotency-key': `end-${s.id}` });
    expect([again.status, again.body.reason, again.headers.get('idempotent-replayed')]).toEqual([404, 'not_found', null]);

    const audit = await auditOf('revoked', s.id);
    expect(audit.metadata).toMatchObject({
      actorType: 'api_key',
      mintedByApiKeyId: org.keyId,
      access: 'read-only',
      scope: 'organization',
      opened: true,
    });
    expect(audit.metadata?.apiKeyId).not.toBe(org.keyId); // the key that ended it
  });

  it('ends a link that was not opened yet: it is listed until then, and cannot be opened after', async () => {
    const link = await mint();
    expect((await listed()).find((l) => l.id === link.id)).toMatchObject({ openedAt: null, expiresAt: null });
    expect((await c.api(org.key, 'DELETE', `/portal-sessions/${link.id}`)).status).toBe(204);
    expect((await open(link.url)).status).toBe(401);
  });

  it("another organization's session is 404, and lives on; so is an unknown or malformed id", async () => {
    const other = await c.seedOrg('Portal other');
    const minted = await c.api(other.key, 'POST', '/portal-sessions', {});
    const opened = await open(minted.body.url as string);
    const cookie = opened.headers
      .getSetCookie()
      .map((v) => v.split(';')[0])
      .join('; ');
    const theirs: Session = { id: minted.body.id as string, cookie, csrf: '', setCookies: [], csp: '' };
    const refused = await c.api(org.key, 'DELETE', `/portal-sessions/${theirs.id}`);
    expect([refused.status, refused.body.reason]).toEqual([404, 'not_found']);
    expect(typeof refused.body.message).toBe('string');
    expect((await portal(theirs, 'GET', '/webhooks')).status).toBe(200);
    expect((await listed()).map((l) => l.id)).not.toContain(theirs.id);
    expect((await listed(other.key)).map((l) => l.id)).toContain(theirs.id);
    expect((await c.api(org.key, 'DELETE', `/portal-sessions/${randomUUID()}`)).status).toBe(404);
    expect((await c.api(org.key, 'DELETE', '/portal-sessions/not-a-uuid')).status).toBe(404);
  });

  it('needs write:webhook to end one and read:webhook to list them, with an organization key', async () => {
    const s = await session();
    const { key: readOnly } = await c.admin.createKey({ user: org.adminId, scope: 'organization', permissions: 'read:webhook' });
    const refused = await c.api(readOnly, 'DELETE', `/portal-sessions/${s.id}`);
    expect([refused.status, refused.body.reason]).toEqual([403, 'forbidden']);
    expect(refused.body.message).toContain('write:webhook');
    expect((await listed(readOnly)).map((l) => l.id)).toContain(s.id);
    const { key: none } = await c.admin.createKey({ user: org.adminId, scope: 'organization', permissions: 'read:project' });
    expect((await c.api(none, 'GET', '/portal-sessions')).status).toBe(403);
    const { key: projectKey } = await c.admin.createKey({ user: org.adminId, scope: 'project', project: org.projectId });
    const scoped = await c.api(projectKey, 'DELETE', `/portal-sessions/${s.id}`);
    expect([scoped.status, scoped.body.reason]).toEqual([403, 'scope_violation']);
    expect((await c.api(undefined, 'DELETE', `/portal-sessions/${s.id}`)).status).toBe(401);
    expect((await portal(s, 'GET', '/webhooks')).status).toBe(200);
  });

  it('pages the list as every list does', async () => {
    const fresh = await c.seedOrg('Portal list');
    for (let i = 0; i < 3; i++) expect((await c.api(fresh.key, 'POST', '/portal-sessions', {})).status).toBe(201);
    const first = await c.api(fresh.key, 'GET', '/portal-sessions?pageSize=2');
    expect([first.body.page, first.body.pageSize, first.body.total, (first.body.data as unknown[]).length]).toEqual([1, 2, 3, 2]);
    const second = await c.api(fresh.key, 'GET', '/portal-sessions?page=2&pageSize=2');
    expect((second.body.data as unknown[]).length).toBe(1);
    expect((await c.api(fresh.key, 'GET', '/portal-sessions?pageSize=101')).status).toBe(400);
  });

  const logout = (s: Session | undefined, headers: Record<string, string> = {}, method = 'POST') =>
    fetch(`${origin}/portal/logout`, { method, headers: { ...(s ? { cookie: s.cookie } : {}), ...headers } });

  it('signs out: the session ends server-side and both cookies are cleared', async () => {
    const s = await session({ access: 'read-only' });
    const out = await logout(s, { 'x-portal-csrf': s.csrf, origin });
    expect(out.status).toBe(204);
    const cleared = out.headers.getSetCookie();
    expect(cleared).toEqual([
      'portal_session=; Path=/portal; Max-Age=0; HttpOnly; SameSite=Lax',
      'portal_csrf=; Path=/portal; Max-Age=0; SameSite=Lax',
    ]);
    // The old cookie, kept by a client that ignored the clearing, is refused: the session ended on the server.
    expect((await portal(s, 'GET', '/webhooks')).status).toBe(401);
    expect((await sessionInfo(s)).status).toBe(401);
    expect((await listed()).map((l) => l.id)).not.toContain(s.id);
    const audit = await auditOf('signed_out', s.id);
    expect(audit.metadata).toMatchObject({
      actorType: 'api_key',
      apiKeyId: org.keyId,
      portalSessionId: s.id,
      access: 'read-only',
    });

    // Signing out again: the session is not live (401), and the dead cookies are cleared all the same.
    const again = await logout(s, { 'x-portal-csrf': s.csrf, origin });
    expect(again.status).toBe(401);
    expect(again.headers.getSetCookie()).toHaveLength(2);
    expect((await logout(undefined, { origin })).status).toBe(401);
  });

  it('refuses a sign-out without the CSRF token, from another origin, or by GET; the session lives on', async () => {
    const s = await session();
    const noCsrf = await logout(s, { origin });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as { message: string }).message).toContain('CSRF');
    expect(noCsrf.headers.getSetCookie()).toEqual([]);
    const wrongCsrf = await logout(s, { 'x-portal-csrf': `ptc_${'x'.repeat(43)}`, origin });
    expect(wrongCsrf.status).toBe(403);
    const otherOrigin = await logout(s, { 'x-portal-csrf': s.csrf, origin: 'https://evil.example' });
    expect(otherOrigin.status).toBe(403);
    expect(otherOrigin.headers.getSetCookie()).toEqual([]);
    const byGet = await logout(s, { 'x-portal-csrf': s.csrf }, 'GET');
    expect([byGet.status, byGet.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await portal(s, 'GET', '/webhooks')).status).toBe(200);
  });
});
