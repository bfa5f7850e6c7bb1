import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { until } from '../support/poll.ts';
import { startProcessCluster, type ProcessCluster } from '../support/process-cluster.ts';
import {
  apiOf,
  createEntry,
  createProject,
  expectExactlyOnce,
  readyz,
  subscriber,
  type Api,
  type Answer,
  type Subscriber,
} from './api.ts';

// A backend frozen or down (docs/runbook.md, "When a dependency fails"), as real processes:
// - core frozen (SIGSTOP) or killed: the gateway answers what needs core with 503 in the spec's error
//   shape within its deadline (BACKEND_TIMEOUT_MS, short here), stays ready, and keeps serving what
//   does not need core (the OpenAPI document, the MCP metadata); it serves again once core is back.
//   The OAuth sign-in's endpoints answer 503 with Retry-After too (the SDK's handlers would say 400).
// - delivery frozen or killed: writes still succeed; every webhook of them arrives once it is back,
//   exactly once per subscription. An open portal session answers 503 while it is out.

const BACKEND_TIMEOUT_MS = 3000;

let cluster: ProcessCluster;
let api: Api;
let subscribers: Subscriber[];
let projectId: string;

beforeAll(async () => {
  cluster = await startProcessCluster('backends', {
    env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true', WEBHOOK_RETRY_BASE_MS: '200', KAFKA_SESSION_TIMEOUT_MS: '6000' },
    perService: { gateway: { BACKEND_TIMEOUT_MS: String(BACKEND_TIMEOUT_MS) } },
  });
  const { key } = await cluster.newOrg('Backend Outage Org');
  api = apiOf(cluster.baseUrl, key);
  projectId = await createProject(api, 'Backend outage');
  subscribers = [await subscriber(api, ['entry.created']), await subscriber(api, ['entry.created'])];
  await expectExactlyOnce(subscribers, [await createEntry(api, projectId, 'before')]);
}, 240_000);

beforeEach(() => onTestFailed(() => console.error(cluster.tails())));

afterAll(async () => {
  for (const s of subscribers ?? []) await s.receiver.close();
  await cluster?.stop();
});

/** 503 (or 504) in the spec's error shape within `withinMs`. */
function expectUnavailable(res: Answer, withinMs: number, what: string): void {
  expect([503, 504], `${what}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
  expect(res.body).toMatchObject({ reason: expect.any(String), message: expect.any(String) });
  expect(res.ms, what).toBeLessThan(withinMs);
}

/** What the gateway serves without core: its readiness, the OpenAPI document, the MCP metadata. */
async function gatewayServesItsOwn(): Promise<void> {
  expect((await readyz(cluster.gateway.port)).status).toBe(200);
  const origin = new URL(cluster.baseUrl).origin;
  for (const path of ['/api/v1/openapi.json', '/.well-known/oauth-protected-resource']) {
    const res = await fetch(`${origin}${path}`, { signal: AbortSignal.timeout(2000) });
    expect(res.status, path).toBe(200);
  }
}

async function servesAgain(): Promise<void> {
  const back = await until(
    () => api('GET', `/projects/${projectId}/entries`),
    (r) => r.status === 200,
    60_000,
  );
  expect(back.status).toBe(200);
}

describe('fault: core frozen or down', () => {
  it('frozen (SIGSTOP): 503/504 within the gateway deadline, its own documents still served; serves again once it thaws', async () => {
    cluster.core.freeze();
    try {
      // The deadline, plus undici's coarse timers (within a second) and a busy machine's slack.
      const within = BACKEND_TIMEOUT_MS + 3000;
      expectUnavailable(await api('GET', `/projects/${projectId}/entries`), within, 'a read');
      expectUnavailable(
        await api('POST', `/projects/${projectId}/entries`, { type: 'feedback', title: 't', description: 'd' }),
        within,
        'a write',
      );
      await gatewayServesItsOwn();
    } finally {
      cluster.core.thaw();
    }
    await servesAgain();
  }, 120_000);

  it('frozen (SIGSTOP): the OAuth sign-in answers 503 with Retry-After within the deadline, not a 400 the assistant gives up on', async () => {
    const origin = new URL(cluster.baseUrl).origin;
    const redirect = 'http://127.0.0.1:9/callback';
    const register = () =>
      fetch(`${origin}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Outage assistant', redirect_uris: [redirect], token_endpoint_auth_method: 'none' }),
      });
    const registered = await register();
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    const form = (params: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
      redirect: 'manual' as const,
    });
    const calls: [string, () => Promise<Response>][] = [
      ['register', register],
      ['token', () => fetch(`${origin}/token`, form({ grant_type: 'refresh_token', refresh_token: 'fbk_rt_gone', client_id }))],
      [
        'consent',
        () =>
          fetch(
            `${origin}/oauth/consent`,
            form({ client_id, redirect_uri: redirect, code_challenge: 'c'.repeat(43), api_key: 'fbk_x', decision: 'approve' }),
          ),
      ],
    ];
    cluster.core.freeze();
    try {
      for (const [what, call] of calls) {
        const started = performance.now();
        const res = await call();
        expect(res.status, `${what}: ${await res.clone().text()}`).toBe(503);
        expect(Number(res.headers.get('retry-after')), what).toBeGreaterThan(0);
        expect(performance.now() - started, what).toBeLessThan(BACKEND_TIMEOUT_MS + 3000);
      }
    } finally {
      cluster.core.thaw();
    }
    await servesAgain();
    expect((await register()).status).toBe(201);
  }, 120_000);

  it('killed: 503 at once (the connection is refused), its own documents still served; serves again once restarted', async () => {
    await cluster.core.kill9();
    expectUnavailable(await api('GET', `/projects/${projectId}/entries`), 2000, 'a read');
    expectUnavailable(
      await api('POST', `/projects/${projectId}/entries`, { type: 'feedback', title: 't', description: 'd' }),
      2000,
      'a write',
    );
    await gatewayServesItsOwn();
    await cluster.core.start();
    await servesAgain();
  }, 120_000);
});

describe('fault: delivery frozen or killed', () => {
  /** Writes while delivery is out; the webhooks calls that need it answer 503/504; returns the entries written. */
  async function writeWhileDeliveryIsOut(tag: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createEntry(api, projectId, `${tag} ${i}`));
    expectUnavailable(await api('GET', '/webhooks'), BACKEND_TIMEOUT_MS + 3000, 'a webhooks read');
    expect((await readyz(cluster.gateway.port)).status).toBe(200);
    return ids;
  }

  it('frozen (SIGSTOP): writes succeed, and their webhooks arrive once it thaws, once each', async () => {
    cluster.delivery.freeze();
    let ids: string[];
    try {
      ids = await writeWhileDeliveryIsOut('while delivery is frozen');
    } finally {
      cluster.delivery.thaw();
    }
    await expectExactlyOnce(subscribers, ids);
  }, 180_000);

  it('frozen (SIGSTOP): an open portal session answers 503 within the deadline, and works again once it thaws', async () => {
    const minted = await api('POST', '/portal-sessions', { access: 'read-only' });
    expect(minted.status).toBe(201);
    const origin = new URL(cluster.baseUrl).origin;
    const opened = await fetch(`${origin}${(minted.body as { url: string }).url}`, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    const cookie = opened.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const session = () => fetch(`${origin}/portal/session`, { headers: { cookie }, signal: AbortSignal.timeout(30_000) });
    expect((await session()).status).toBe(200);
    cluster.delivery.freeze();
    try {
      const started = performance.now();
      const res = await session();
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ reason: expect.any(String), message: expect.any(String) });
      expect(performance.now() - started).toBeLessThan(BACKEND_TIMEOUT_MS + 3000);
    } finally {
      cluster.delivery.thaw();
    }
    expect((await until(session, (r) => r.status === 200, 60_000)).status).toBe(200);
  }, 120_000);

  it('killed: writes succeed, and their webhooks arrive once it is restarted, once each', async () => {
    await cluster.delivery.kill9();
    const ids = await writeWhileDeliveryIsOut('while delivery is down');
    await cluster.delivery.start();
    await expectExactlyOnce(subscribers, ids);
  }, 180_000);
});
