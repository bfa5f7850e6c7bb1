import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';

// Issue 30, item 6, at the gateway's edge (docs/security.md, "Issue 30: the smaller findings"): the
// tool-protocol endpoint's rate limit and metadata URL, idempotent replays after a revoke, and the
// settings route's failed-authentication limit. One proxy hop is trusted, so each test is its own
// client address (X-Forwarded-For) under a failure limit of 3 a minute.
let c: TestCluster;
let org: SeededOrg;
let root: string;

beforeAll(async () => {
  c = await startTestCluster({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '3', TRUSTED_PROXY_HOPS: '1' } });
  org = await c.seedOrg('Edge');
  root = c.baseUrl.replace('/api/v1', '');
}, 120_000);
afterAll(async () => {
  await c?.stop();
});

/** A fresh client address, as the trusted proxy names it. */
const address = () => `10.${randomBytes(3).join('.')}`;

/** A raw JSON-RPC message POSTed to /mcp. */
function mcp(headers: Record<string, string>, method: string, params: Record<string, unknown> = {}) {
  return fetch(`${root}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

/** The protected-resource metadata as fetched with `host` as the Host header (fetch cannot set it). */
function metadataWithHost(host: string): Promise<{ resource: string }> {
  const { port } = new URL(root);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/.well-known/oauth-protected-resource', headers: { host } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve(JSON.parse(text) as { resource: string }));
    });
    req.on('error', reject);
  });
}

describe('the tool-protocol endpoint', () => {
  it('counts every authenticated request against the key, whatever its method', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    const auth = { authorization: `Bearer ${key}`, 'x-forwarded-for': address() };
    const remaining = async () => Number((await c.api(key, 'GET', '/me')).headers.get('x-ratelimit-remaining'));
    const before = await remaining();
    const answers = [await mcp(auth, 'ping'), await mcp(auth, 'tools/list'), await mcp(auth, 'ping')];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(answers[2].headers.get('x-ratelimit-remaining')).toBe(String(before - 3));
    expect(await remaining()).toBe(before - 4);
  });

  it('charges a batch one unit per message, before any runs, and refuses a batch over the cap (issue 37 item 7)', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    const auth = { authorization: `Bearer ${key}`, 'x-forwarded-for': address() };
    const remaining = async () => Number((await c.api(key, 'GET', '/me')).headers.get('x-ratelimit-remaining'));
    const batch = (n: number) =>
      fetch(`${root}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth },
        body: JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' }))),
      });
    const before = await remaining();
    const five = await batch(5);
    expect(five.status).toBe(200);
    expect(((await five.json()) as unknown[]).length).toBe(5);
    expect(five.headers.get('x-ratelimit-remaining')).toBe(String(before - 5));
    // The probe's batch: 100 tools/list (about 2.3 MB of answer) for one unit. Refused before it runs.
    const hundred = await batch(100);
    expect(hundred.status).toBe(400);
    expect(await hundred.json()).toMatchObject({ reason: 'validation_error' });
    expect(await remaining()).toBe(before - 5 - 1 - 1);
    // At the cap, the batch runs and its answer stays under the bound.
    const twenty = await batch(20);
    expect(twenty.status).toBe(200);
    expect(Buffer.byteLength(await twenty.text())).toBeLessThan(1024 * 1024);
    expect(await remaining()).toBe(before - 5 - 1 - 1 - 20 - 1);
  });

  it('bounds a batch’s answers together: a message whose answer would pass 1 MiB is answered with an error', async () => {
    const big = await c.api(org.key, 'POST', '/projects', { name: 'Large', description: 'x'.repeat(300 * 1024) });
    expect(big.status).toBe(201);
    const res = await fetch(`${root}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${org.key}`,
        'x-forwarded-for': address(),
      },
      body: JSON.stringify(
        Array.from({ length: 6 }, (_, i) => ({
          jsonrpc: '2.0',
          id: i + 1,
          method: 'tools/call',
          params: { name: 'get_project', arguments: { projectId: big.body.id } },
        })),
      ),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    // The answers that fit, then errors: never six times 600 KB (the text twice, as content and structured).
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024 + 64 * 1024);
    const answers = JSON.parse(text) as { id: number; result: { isError?: boolean; content: { text: string }[] } }[];
    expect(answers).toHaveLength(6);
    expect(answers.filter((a) => !a.result.isError).length).toBeGreaterThan(0);
    // A tool error is the REST error body as text (docs/mcp.md, "Errors").
    const reasons = answers
      .filter((a) => a.result.isError)
      .map((a) => (JSON.parse(a.result.content[0].text) as { reason: string }).reason);
    expect(reasons).toContain('payload_too_large');
  });

  it('answers a key over its limit with 429 for any method, before the protocol', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    for (let i = 0; i < 600; i += 50) await Promise.all(Array.from({ length: 50 }, () => c.api(key, 'GET', '/me')));
    const limited = await mcp({ authorization: `Bearer ${key}`, 'x-forwarded-for': address() }, 'tools/list');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ reason: 'rate_limit' });
  });

  it('counts a key that fails against the address: over the limit, 429 for bad keys, a valid key still passes', async () => {
    const from = address();
    const bad = () =>
      mcp({ authorization: `Bearer fbk_${randomBytes(8).toString('hex')}_nope`, 'x-forwarded-for': from }, 'ping');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await bad()).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await mcp({ authorization: `Bearer ${org.key}`, 'x-forwarded-for': from }, 'ping')).status).toBe(200);
  });

  it('names a loopback Host in its metadata in development, and never a Host a client made up', async () => {
    const { port } = new URL(root);
    expect((await metadataWithHost(`127.0.0.1:${port}`)).resource).toBe(`http://127.0.0.1:${port}/mcp`);
    expect((await metadataWithHost(`localhost:${port}`)).resource).toBe(`http://localhost:${port}/mcp`);
    expect((await metadataWithHost(`evil.example:${port}`)).resource).toBe(`http://localhost:${port}/mcp`);
    expect((await metadataWithHost('evil.example')).resource).toBe('http://localhost/mcp');
  });
});

describe('an idempotent replay', () => {
  it('is not served to a key revoked since, even while the key is in the gateway cache', async () => {
    const { id, key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    const body = { name: 'Replayed', description: 'once' };
    const headers = { 'idempotency-key': `replay-${randomBytes(4).toString('hex')}` };
    const first = await c.api(key, 'POST', '/projects', body, headers);
    expect(first.status).toBe(201);
    const replay = await c.api(key, 'POST', '/projects', body, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await c.admin.revokeKey(id);
    const afterRevoke = await c.api(key, 'POST', '/projects', body, headers);
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body).toMatchObject({ reason: 'key_revoked' });
  });
});

describe('the settings route', () => {
  it('counts failed sessions against the address: over the limit 429, while a valid session still passes', async () => {
    const from = address();
    const settings = (session: string) =>
      fetch(`${root}/api/settings/evidence-key`, { headers: { cookie: `session=${session}`, 'x-forwarded-for': from } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await settings(randomBytes(32).toString('base64url'))).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await settings('not-a-session-token')).status).toBe(429); // malformed: refused without a check
    const { token } = await c.admin.createSession(org.adminId);
    expect((await settings(token)).status).toBe(200);
  });
});

describe('the OAuth consent form (the tool-protocol sign-in)', () => {
  it('counts a wrong API key against the address: over the limit 429 with Retry-After, while a valid key still passes', async () => {
    const redirect = 'http://127.0.0.1:9/callback';
    const registered = await fetch(`${root}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Edge assistant', redirect_uris: [redirect], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const from = address();
    const consent = (key: string) =>
      fetch(`${root}/oauth/consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
        body: new URLSearchParams({
          client_id,
          redirect_uri: redirect,
          code_challenge: randomBytes(32).toString('base64url'),
          state: 's',
          scope: 'read:entry',
          api_key: key,
          decision: 'approve',
        }),
        redirect: 'manual',
      });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await consent(`fbk_${randomBytes(4).toString('hex')}_${'A'.repeat(40)}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const over = await consent('not-a-key');
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await over.text()).toContain('too many failed authentications');
    expect((await consent(org.key)).status).toBe(302);
  });
});
