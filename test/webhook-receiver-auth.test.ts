import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClientCertificate } from '../services/delivery/src/features/subscriptions/receiver.ts';
import { refreshAfterMs } from '../services/delivery/src/sender/oauth2-tokens.ts';
import { testCa } from './support/certificates.ts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { createReceivers, verifyStandardSignature, type Received, type Receiver } from './support/receiver.ts';

// Custom headers and receiver authentication end to end (docs/webhooks.md, "Custom headers" and
// "Authenticating to your endpoint"): the delivery service against real receivers that demand a
// bearer token, basic credentials, an OAuth2 token from a local token endpoint, and a TLS client
// certificate from an openssl-made CA (the subscription's own and the platform's); every delivery
// still carries its signature. Secrets are sealed in the row and masked in every answer.
const receivers = createReceivers();
const dir = mkdtempSync(path.join(os.tmpdir(), 'receiver-auth-'));
const ca = testCa(dir, 'receivers');
const serverCert = ca.issue('receiver-server');
const subscriptionCert = ca.issue('subscription-client', { client: true });
const platformCert = ca.issue('platform-client', { client: true });
const otherKey = ca.issue('unrelated', { client: true });
const pem = (file: string) => readFileSync(file, 'utf8');

let c: TestCluster;
let org: SeededOrg;
const closers: (() => Promise<void>)[] = [];
const api = (method: string, p: string, body?: unknown) => c.api(org.key, method, p, body);
/** Every secret given in this file: no answer and no stored row may hold one. */
const SECRETS = [
  'static-header-value-0123456789',
  'bearer-token-abcdefghijklmnop',
  'basic-password-secret',
  'oauth-client-secret-xyz',
  pem(subscriptionCert.keyFile),
];
const answers: string[] = [];

/** Creates a subscription for entry.created and returns its id and secret. */
async function subscribe(url: string, extra: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await api('POST', '/webhooks', { destinationUrl: url, eventNames: ['entry.created'], ...extra });
  answers.push(JSON.stringify(res.body));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id as string, secret: res.body.hmacSecret as string };
}

/** A create with `extra` is a 400 validation_error whose problems point exactly at `pointers`. */
async function expectRefused(extra: Record<string, unknown>, pointers: string[]): Promise<void> {
  const res = await api('POST', '/webhooks', {
    destinationUrl: 'https://example.com/h',
    eventNames: ['entry.created'],
    ...extra,
  });
  expect(res.status, JSON.stringify(extra)).toBe(400);
  expect(res.body.reason).toBe('validation_error');
  expect(
    res.body.details.errors.map((e: { path: string }) => e.path),
    JSON.stringify(extra),
  ).toEqual(pointers);
}

/** Makes an entry; returns its id. */
async function entry(title: string): Promise<string> {
  const res = await api('POST', `/projects/${org.projectId}/entries`, { title, description: '-', type: 'feedback' });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const about = (entityId: string) => (r: Received) => (r.body as { entityId?: string } | undefined)?.entityId === entityId;

/** A receiver that answers 200 only when `allowed(request)`, 401 otherwise. */
async function demanding(allowed: (r: Received) => boolean): Promise<Receiver> {
  const r = await receivers.start();
  r.respond((req) => (allowed(req) ? { status: 200, body: 'ok' } : { status: 401, body: 'who are you?' }));
  return r;
}

/** A local OAuth2 token endpoint (client credentials, HTTP basic client authentication). */
interface TokenServer {
  url: string;
  fetches: { scope: string | null; audience: string | null; clientId: string }[];
  issued: string[];
}
async function startTokenServer(clientId: string, clientSecret: string, expiresIn: number): Promise<TokenServer> {
  const state: TokenServer = { url: '', fetches: [], issued: [] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const [id, secret] = Buffer.from(String(req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
        .toString('utf8')
        .split(':')
        .map((s) => decodeURIComponent(s.replaceAll('+', ' ')));
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || form.get('grant_type') !== 'client_credentials')
        return json(400, { error: 'unsupported_grant_type' });
      if (id !== clientId || secret !== clientSecret) return json(401, { error: 'invalid_client' });
      state.fetches.push({ scope: form.get('scope'), audience: form.get('audience'), clientId: id });
      const token = `access-${state.issued.length + 1}-${Math.random().toString(36).slice(2)}`;
      state.issued.push(token);
      json(200, { access_token: token, token_type: 'Bearer', expires_in: expiresIn });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`;
  return state;
}

/** An HTTPS receiver that requires a client certificate signed by the test CA; records each client's CN. */
async function startMtlsReceiver(): Promise<{
  url: string;
  received: { cn: string; headers: http.IncomingHttpHeaders; body: string }[];
}> {
  const received: { cn: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = https.createServer(
    {
      cert: pem(serverCert.certFile),
      key: pem(serverCert.keyFile),
      ca: pem(ca.caFile),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const cn = (req.socket as tls.TLSSocket).getPeerCertificate().subject?.CN;
        received.push({ cn: String(cn), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200);
        res.end('ok');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

async function waitUntil<T>(read: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  // The receivers' CA is trusted as a receiver's public CA would be (NODE_EXTRA_CA_CERTS in a deployment).
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), pem(ca.caFile)]);
  c = await startTestCluster({
    env: { WEBHOOK_CLIENT_CERT_FILE: platformCert.certFile, WEBHOOK_CLIENT_KEY_FILE: platformCert.keyFile },
  });
  org = await c.seedOrg('Receiver Auth Org');
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  for (const close of closers) await close();
  await c?.stop();
  delete process.env.WEBHOOK_CLIENT_CERT_FILE;
  delete process.env.WEBHOOK_CLIENT_KEY_FILE;
  rmSync(dir, { recursive: true, force: true });
});

describe('custom headers', () => {
  it('are sent on every delivery beside the signature, shown masked, and sealed in the row', async () => {
    const receiver = await receivers.start();
    const { id, secret } = await subscribe(receiver.url, {
      headers: { 'X-Api-Key': SECRETS[0], 'X-Tenant': 'acme' },
    });
    const entityId = await entry('headers');
    const [got] = await receiver.waitFor(1, about(entityId));
    expect(got.headers['x-api-key']).toBe(SECRETS[0]);
    expect(got.headers['x-tenant']).toBe('acme');
    expect(verifyStandardSignature(secret, got)).toBe(true);

    const shown = await api('GET', `/webhooks/${id}`);
    answers.push(JSON.stringify(shown.body));
    expect(shown.body.headers).toEqual({ 'X-Api-Key': '****6789', 'X-Tenant': '****' });
    expect(shown.body.auth).toBeNull();

    // PATCH replaces the set; null removes it.
    const patched = await api('PATCH', `/webhooks/${id}`, { headers: { 'X-Other': 'v' } });
    expect(patched.body.headers).toEqual({ 'X-Other': '****' });
    const cleared = await api('PATCH', `/webhooks/${id}`, { headers: null });
    expect(cleared.body.headers).toEqual({});
    const plain = await api('POST', '/webhooks', {
      destinationUrl: 'https://example.com/h',
      eventNames: ['entry.status_changed'],
    });
    expect(plain.body).toMatchObject({ headers: {}, auth: null });
  });

  it('refuses hop-by-hop, Host, Content-Length and signature headers, bad names and values, with a pointer', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ 'webhook-signature': 'x' }, '/headers/webhook-signature'],
      [{ 'Webhook-Id': 'x' }, '/headers/Webhook-Id'],
      [{ 'X-Service-Signature': 'x' }, '/headers/X-Service-Signature'],
      [{ Host: 'evil.example' }, '/headers/Host'],
      [{ 'Content-Length': '1' }, '/headers/Content-Length'],
      [{ Connection: 'close' }, '/headers/Connection'],
      [{ 'Transfer-Encoding': 'chunked' }, '/headers/Transfer-Encoding'],
      [{ 'Bad Name': 'x' }, '/headers/Bad Name'],
      [{ 'X-Injected': 'a\r\nX-Evil: 1' }, '/headers/X-Injected'],
    ];
    for (const [headers, pointer] of cases) await expectRefused({ headers }, [pointer]);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    const tooMany = await api('POST', '/webhooks', {
      destinationUrl: 'https://example.com/h',
      eventNames: ['entry.created'],
      headers: many,
    });
    expect(tooMany.status).toBe(400);
  });
});

describe('receiver authentication', () => {
  it('bearer: the receiver gets Authorization: Bearer <token>, and the signature', async () => {
    const receiver = await demanding((r) => r.headers.authorization === `Bearer ${SECRETS[1]}`);
    const { id, secret } = await subscribe(receiver.url, { auth: { type: 'bearer', token: SECRETS[1] } });
    const entityId = await entry('bearer');
    const [got] = await receiver.waitFor(1, about(entityId));
    expect(got.headers.authorization).toBe(`Bearer ${SECRETS[1]}`);
    expect(verifyStandardSignature(secret, got)).toBe(true);
    const shown = await api('GET', `/webhooks/${id}`);
    answers.push(JSON.stringify(shown.body));
    expect(shown.body.auth).toEqual({ type: 'bearer', token: '****mnop' });
  });

  it('basic: the receiver gets Authorization: Basic of username:password', async () => {
    const expected = `Basic ${Buffer.from(`hook-user:${SECRETS[2]}`).toString('base64')}`;
    const receiver = await demanding((r) => r.headers.authorization === expected);
    const { id } = await subscribe(receiver.url, { auth: { type: 'basic', username: 'hook-user', password: SECRETS[2] } });
    const entityId = await entry('basic');
    const [got] = await receiver.waitFor(1, about(entityId));
    expect(got.headers.authorization).toBe(expected);
    const listed = await api('GET', '/webhooks');
    answers.push(JSON.stringify(listed.body));
    expect((listed.body.data as { id: string; auth: unknown }[]).find((w) => w.id === id)?.auth).toEqual({
      type: 'basic',
      username: 'hook-user',
      password: '****cret',
    });
  });

  it('oauth2: one token fetch for many deliveries, and a new token after a 401', async () => {
    const tokens = await startTokenServer('hooks-client', SECRETS[3], 3600);
    // The receiver accepts the newest token the endpoint issued, unless revoked.
    const revoked = new Set<string>();
    const receiver = await demanding((r) => {
      const token = String(r.headers.authorization).replace(/^Bearer /, '');
      return token === tokens.issued.at(-1) && !revoked.has(token);
    });
    const { id, secret } = await subscribe(receiver.url, {
      auth: {
        type: 'oauth2',
        tokenUrl: tokens.url,
        clientId: 'hooks-client',
        clientSecret: SECRETS[3],
        scope: 'webhooks:write',
        audience: 'https://receiver.example',
      },
    });
    {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await entry(`oauth ${i}`));
      const got = await receiver.waitFor(
        6,
        (r) => ids.includes((r.body as { entityId: string }).entityId) && r.headers.authorization !== undefined,
      );
      expect(new Set(got.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${tokens.issued[0]}`]));
      expect(got.every((r) => verifyStandardSignature(secret, r))).toBe(true);
      expect(tokens.fetches).toEqual([
        { scope: 'webhooks:write', audience: 'https://receiver.example', clientId: 'hooks-client' },
      ]);

      // The receiver stops accepting the token: the next delivery gets a 401, the service fetches a new
      // token and sends once more, within the same attempt.
      revoked.add(tokens.issued[0]);
      const after = await entry('oauth after revocation');
      const both = await receiver.waitFor(2, about(after));
      expect(both.map((r) => r.headers.authorization)).toEqual([`Bearer ${tokens.issued[0]}`, `Bearer ${tokens.issued[1]}`]);
      expect(both[0].headers['webhook-id']).toBe(both[1].headers['webhook-id']);
      expect(tokens.fetches).toHaveLength(2);
      const list = await api('GET', `/webhooks/${id}/deliveries?status=succeeded&pageSize=100`);
      const mine = (list.body.data as { attempts: number; id: string }[]).find((d) => d.id === both[0].headers['webhook-id']);
      expect(mine?.attempts).toBe(1);
    }
    const shown = await api('GET', `/webhooks/${id}`);
    answers.push(JSON.stringify(shown.body));
    expect(shown.body.auth).toEqual({
      type: 'oauth2',
      tokenUrl: tokens.url,
      clientId: 'hooks-client',
      clientSecret: '****-xyz',
      scope: 'webhooks:write',
      audience: 'https://receiver.example',
    });
  }, 60_000);

  it('oauth2: a token endpoint that refuses the client fails the attempt with its error', async () => {
    const tokens = await startTokenServer('right-client', 'right-secret', 60);
    const receiver = await receivers.start();
    const { id } = await subscribe(receiver.url, {
      auth: { type: 'oauth2', tokenUrl: tokens.url, clientId: 'wrong-client', clientSecret: 'wrong-secret-value' },
    });
    const test = await api('POST', `/webhooks/${id}/test`);
    expect(test.body.deliveryError).toMatch(/oauth2 token request failed: invalid_client/);
    expect(
      receiver.received.filter((r) => (r.body as { data?: { subscriptionId?: string } }).data?.subscriptionId === id),
    ).toEqual([]);
  });

  it('mtls: the subscription’s own client certificate, and the platform’s, are presented to a receiver that requires one', async () => {
    const receiver = await startMtlsReceiver();
    const own = await subscribe(receiver.url, {
      auth: { type: 'mtls', certificate: pem(subscriptionCert.certFile), privateKey: pem(subscriptionCert.keyFile) },
    });
    const first = await entry('mtls own');
    const got = await waitUntil(() => receiver.received.find((r) => r.body.includes(first)));
    expect(got.cn).toBe('subscription-client');
    expect(got.headers['webhook-signature']).toMatch(/^v1,/);
    const shown = await api('GET', `/webhooks/${own.id}`);
    answers.push(JSON.stringify(shown.body));
    expect(shown.body.auth).toMatchObject({
      type: 'mtls',
      certificate: {
        source: 'subscription',
        subject: 'CN=subscription-client',
        issuer: 'CN=receivers test CA',
        fingerprintSha256: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
      },
    });
    // The own subscription is deleted, so only the platform's certificate goes out next.
    expect((await api('DELETE', `/webhooks/${own.id}`)).status).toBe(204);

    const platform = await subscribe(receiver.url, { auth: { type: 'mtls' } });
    const second = await entry('mtls platform');
    const viaPlatform = await waitUntil(() => receiver.received.find((r) => r.body.includes(second)));
    expect(viaPlatform.cn).toBe('platform-client');
    expect((await api('GET', `/webhooks/${platform.id}`)).body.auth).toEqual({
      type: 'mtls',
      certificate: { source: 'platform' },
    });
  });

  it('refuses bad auth with a pointer', async () => {
    const cases: [unknown, string[]][] = [
      [{ type: 'bearer' }, ['/auth/token']],
      [{ type: 'bearer', token: 't', username: 'u' }, ['/auth/username']],
      [{ type: 'basic', username: 'a:b', password: 'p' }, ['/auth/username']],
      [{ type: 'basic', username: 'a' }, ['/auth/password']],
      [{ type: 'oauth2', tokenUrl: 'ftp://token.example/t', clientId: 'c', clientSecret: 's' }, ['/auth/tokenUrl']],
      [{ type: 'oauth2', tokenUrl: 'https://token.example/t', clientId: 'c' }, ['/auth/clientSecret']],
      [{ type: 'mtls', certificate: 'not a certificate', privateKey: pem(subscriptionCert.keyFile) }, ['/auth/certificate']],
      [{ type: 'mtls', certificate: pem(subscriptionCert.certFile), privateKey: 'not a key' }, ['/auth/privateKey']],
      [{ type: 'mtls', certificate: pem(subscriptionCert.certFile), privateKey: pem(otherKey.keyFile) }, ['/auth/privateKey']],
      [{ type: 'mtls', certificate: pem(subscriptionCert.certFile) }, ['/auth/privateKey']],
      [{ type: 'kerberos' }, ['/auth/type']],
    ];
    for (const [auth, pointers] of cases) await expectRefused({ auth }, pointers);
    // An auth and an Authorization header of its own conflict, on create and on a PATCH that adds one.
    const clash = await api('POST', '/webhooks', {
      destinationUrl: 'https://example.com/h',
      eventNames: ['entry.created'],
      auth: { type: 'bearer', token: 't' },
      headers: { authorization: 'Bearer other' },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.details.errors[0].path).toBe('/headers/authorization');
    const { id } = await subscribe('https://example.com/h', { headers: { Authorization: 'Bearer static' } });
    const patch = await api('PATCH', `/webhooks/${id}`, { auth: { type: 'basic', username: 'u', password: 'p' } });
    expect(patch.status).toBe(400);
    expect(patch.body.details.errors[0].path).toBe('/headers/Authorization');
  });

  it('validates a client certificate’s dates (an expired one is refused)', () => {
    const cert = pem(subscriptionCert.certFile);
    const key = pem(subscriptionCert.keyFile);
    expect(checkClientCertificate(cert, key)).toMatchObject({ subject: 'CN=subscription-client' });
    expect(checkClientCertificate(cert, key, new Date(Date.now() + 3 * 86_400_000))).toEqual({
      path: '/auth/certificate',
      message: expect.stringMatching(/^expired on /),
    });
    // Tokens are refreshed shortly before they expire: a tenth of their lifetime early, at most a minute.
    expect(refreshAfterMs(3600)).toBe(3_540_000);
    expect(refreshAfterMs(60)).toBe(54_000);
    expect(refreshAfterMs(undefined)).toBe(300_000);
  });

  it('keeps every secret sealed at rest and out of every answer', async () => {
    const db = new pg.Client({ connectionString: c.databaseUrl });
    await db.connect();
    const { rows } = await db.query('SELECT * FROM delivery.subscriptions');
    await db.end();
    const stored = JSON.stringify(rows);
    for (const s of SECRETS) expect(stored.includes(s), s.slice(0, 20)).toBe(false);
    for (const s of SECRETS)
      expect(
        answers.some((a) => a.includes(s)),
        s.slice(0, 20),
      ).toBe(false);
    const sealed = (rows as { receiverSealed: string | null }[]).filter((r) => r.receiverSealed);
    expect(sealed.length).toBeGreaterThan(3);
    for (const r of sealed) expect(r.receiverSealed).toMatch(/^v2:[0-9a-f]{12}:/);
  });
});
