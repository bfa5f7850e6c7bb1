import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ApiTimeoutError, createClient } from '@cluster/client';
import { startTestCluster, type TestCluster } from './support/cluster.ts';
import { startTcpProxy } from './support/tcp-proxy.ts';

// The SDK's retries, idempotency and deadlines against the real gateway: the gateway's own rate
// limiter (a small limit for this file), an HTTP proxy that answers one 429 with Retry-After before
// forwarding, a TCP proxy that drops the connection after the gateway answered a POST, and a frozen
// TCP proxy for the deadline and AbortSignal.

const LIMIT = 20;
let c: TestCluster;
let gateway: { host: string; port: number };

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  gateway = { host: '127.0.0.1', port: c.ports.gateway };
});
afterAll(async () => c?.stop());

/** Lists the org's projects named `name` with a fresh client (its own key budget is the test's concern). */
async function projectsNamed(key: string, name: string) {
  const all = await createClient({ baseUrl: c.baseUrl, apiKey: key }).projects.list().toArray();
  return all.filter((p) => p.name === name);
}

/** An HTTP proxy in front of the gateway: its first request is answered 429 Retry-After: 1; the others are forwarded. */
async function startThrottlingProxy() {
  const seen: { at: number; idempotencyKey?: string; answered: number }[] = [];
  const server = http.createServer((req, res) => {
    const record = { at: Date.now(), idempotencyKey: req.headers['idempotency-key'] as string | undefined, answered: 0 };
    seen.push(record);
    if (seen.length === 1) {
      record.answered = 429;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ reason: 'rate_limit', message: 'rate limit exceeded', retryAfter: 1 }));
      req.resume();
      return;
    }
    const upstream = http.request({ ...gateway, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      record.answered = answer.statusCode ?? 0;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A TCP proxy in front of the gateway that forwards the first connection's request, lets the gateway
 * answer, and drops the connection before any byte of the answer reaches the client. Later
 * connections are forwarded both ways.
 */
async function startDroppingProxy() {
  const requests: string[] = [];
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const first = ++connections === 1;
    const upstream = net.connect(gateway);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s)).on('error', () => {});
    }
    client.on('data', (chunk: Buffer) => requests.push(chunk.toString('latin1')));
    client.pipe(upstream);
    if (first) {
      upstream.once('data', () => {
        client.destroy();
        upstream.destroy();
      });
    } else {
      upstream.pipe(client);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1`,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('retries', () => {
  it('retries a 429 after its Retry-After and succeeds, with the same Idempotency-Key', async () => {
    const org = await c.seedOrg('Throttled');
    const proxy = await startThrottlingProxy();
    try {
      const client = createClient({ baseUrl: proxy.url, apiKey: org.key });
      const started = Date.now();
      const project = await client.projects.create({ name: 'after-429', description: '' });
      expect(project.name).toBe('after-429');
      expect(proxy.seen.map((s) => s.answered)).toEqual([429, 201]);
      // Waited at least the one second Retry-After asked for.
      expect(proxy.seen[1].at - proxy.seen[0].at).toBeGreaterThanOrEqual(1000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(proxy.seen[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(proxy.seen[1].idempotencyKey).toBe(proxy.seen[0].idempotencyKey);
      expect(await projectsNamed(org.key, 'after-429')).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it("meets the gateway's own limiter: its 429 rate_limit carries Retry-After; a wait over maxDelayMs is not taken", async () => {
    const org = await c.seedOrg('Limited');
    const client = createClient({ baseUrl: c.baseUrl, apiKey: org.key, maxDelayMs: 2000 });
    // seedOrg spent one request of the key's budget.
    await Promise.all(Array.from({ length: LIMIT - 1 }, () => client.identity.me()));
    const started = Date.now();
    const err = await client.identity.me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const limited = err as ApiError;
    expect(limited).toMatchObject({ status: 429, reason: 'rate_limit' });
    expect(limited.retryAfterMs).toBeGreaterThan(2000);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(limited.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('retries a POST whose answer was lost with a dropped connection: one record, the stored answer replayed', async () => {
    const org = await c.seedOrg('Dropped');
    const proxy = await startDroppingProxy();
    try {
      const replayed: (string | null)[] = [];
      const client = createClient({
        baseUrl: proxy.url,
        apiKey: org.key,
        fetch: async (request) => {
          const answer = await fetch(request);
          replayed.push(answer.headers.get('idempotent-replayed'));
          return answer;
        },
      });
      const project = await client.projects.create({ name: 'exactly-once', description: '' });
      expect(project.name).toBe('exactly-once');
      expect(proxy.connections()).toBe(2);
      const keys = proxy.requests.map((r) => /idempotency-key: ([^\r\n]+)/i.exec(r)?.[1]).filter(Boolean);
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      // The first attempt created the project (its answer never arrived); the retry got the stored answer.
      expect(replayed).toEqual(['true']);
      const named = await projectsNamed(org.key, 'exactly-once');
      expect(named.map((p) => p.id)).toEqual([project.id]);
    } finally {
      await proxy.close();
    }
  });
});

describe('deadlines and cancellation', () => {
  it('ends a call on a hung gateway with ApiTimeoutError at its timeoutMs, and with the reason of an AbortSignal', async () => {
    const org = await c.seedOrg('Hung');
    const proxy = await startTcpProxy(gateway);
    try {
      proxy.freeze();
      const client = createClient({ baseUrl: `http://127.0.0.1:${proxy.port}/api/v1`, apiKey: org.key });
      const started = Date.now();
      const err = await client.identity.me({ timeoutMs: 300 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiTimeoutError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(Date.now() - started).toBeLessThan(5000);

      const controller = new AbortController();
      const call = client.projects.create({ name: 'never', description: '' }, { signal: controller.signal, timeoutMs: 0 });
      setTimeout(() => controller.abort(new Error('caller gave up')), 100);
      await expect(call).rejects.toThrow('caller gave up');
    } finally {
      await proxy.stop();
    }
    expect(await projectsNamed(org.key, 'never')).toHaveLength(0);
  });
});
