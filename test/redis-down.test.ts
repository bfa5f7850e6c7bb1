import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGatewayConfig, startGateway } from '@cluster/gateway';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

/**
 * Redis down (issue 26, docs/runbook.md "Redis down"): two gateway replicas share their rate limits
 * through a proxy in front of the real Redis, which the test closes (connections reset and refused)
 * or freezes (connections open, no answer), then opens again. Meanwhile every call answers within a
 * second and never 5xx, each replica enforces the limits on its own, and gateway_rate_limit_degraded
 * says so; once Redis answers again, the gauge drops back to 0 and the limits are shared again.
 */

const REDIS = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const PER_MINUTE = 4;

let c: TestCluster;
let org: SeededOrg;
let proxy: TcpProxy;
const replicas: { url: string; metrics: string; stop: () => Promise<void> }[] = [];

beforeAll(async () => {
  c = await startTestCluster({ withoutDelivery: true });
  org = await c.seedOrg('Redis down');
  proxy = await startTcpProxy({ host: REDIS.hostname, port: Number(REDIS.port || 6379) });
  const url = (port: number) => `http://127.0.0.1:${port}`;
  for (let i = 0; i < 2; i++) {
    const gateway = await startGateway({
      ...readGatewayConfig(),
      port: 0,
      metricsPort: 0,
      redisUrl: `redis://127.0.0.1:${proxy.port}`,
      rateLimitPerMinute: PER_MINUTE,
      trustedProxyHops: 1,
      services: { core: url(c.ports.core), delivery: url(c.ports.delivery), evidence: url(c.ports.evidence) },
    });
    replicas.push({
      url: `${url(gateway.port)}/api/v1`,
      metrics: `${url(gateway.metricsPort)}/metrics`,
      stop: () => gateway.shutdown.run('test'),
    });
  }
}, 120_000);

afterAll(async () => {
  for (const r of replicas) await r.stop();
  await proxy?.stop();
  await c?.stop();
});

/** One GET /me on a replica: its status, reason, Retry-After and how long it took. */
async function call(replica: number, key: string) {
  const started = performance.now();
  const res = await fetch(`${replicas[replica].url}/me`, {
    headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': `2001:db8::${randomBytes(2).toString('hex')}` },
  });
  const body = (await res.json()) as { reason?: string };
  return { status: res.status, reason: body.reason, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started };
}

/** gateway_rate_limit_degraded on each replica's /metrics. */
async function degraded(): Promise<number[]> {
  return Promise.all(
    replicas.map(async (r) => {
      const text = await (await fetch(r.metrics)).text();
      return Number(/^gateway_rate_limit_degraded(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1]);
    }),
  );
}

/** A new key of the organization's admin (each phase its own, so its limit starts empty). */
async function newKey(): Promise<string> {
  return (await c.admin.createKey({ user: org.adminId, scope: 'organization' })).key;
}

/** Both replicas together allow PER_MINUTE calls of a key, then 429: the limit is shared. */
async function expectSharedLimit(): Promise<void> {
  const key = await newKey();
  const statuses = [];
  for (let i = 0; i <= PER_MINUTE; i++) statuses.push((await call(i % 2, key)).status);
  expect(statuses).toEqual([...Array(PER_MINUTE).fill(200), 429]);
}

/** While Redis is away: every answer within a second and never 5xx; each replica allows PER_MINUTE calls of a key on its own. */
async function expectPerReplicaLimit(): Promise<void> {
  const key = await newKey();
  for (const r of [0, 1]) {
    const answers = [];
    for (let i = 0; i <= PER_MINUTE; i++) answers.push(await call(r, key));
    expect(answers.map((a) => a.status)).toEqual([...Array(PER_MINUTE).fill(200), 429]);
    expect(answers[PER_MINUTE]).toMatchObject({ reason: 'rate_limit', retryAfter: expect.stringMatching(/^[1-9]/) });
    // A key that fails goes through the failed-authentication limit, in memory too.
    answers.push(await call(r, `fbk_${randomBytes(4).toString('hex')}_${'x'.repeat(40)}`));
    expect(answers.at(-1)).toMatchObject({ status: 401, reason: 'invalid_key' });
    for (const a of answers) expect(a.ms).toBeLessThan(1000);
  }
  expect(await degraded()).toEqual([1, 1]);
}

async function expectRecovered(): Promise<void> {
  await proxy.open();
  expect(await until(degraded, (d) => d.every((v) => v === 0))).toEqual([0, 0]);
  await expectSharedLimit();
}

describe('rate limits while Redis is down', () => {
  it('are shared by the replicas while Redis answers', async () => {
    expect(await degraded()).toEqual([0, 0]);
    await expectSharedLimit();
  });

  it('fall back to per-replica limits when Redis refuses connections, and are shared again once it is back', async () => {
    await proxy.close();
    try {
      await expectPerReplicaLimit();
    } finally {
      await expectRecovered();
    }
  });

  it('fall back within the bound when Redis hangs, and are shared again once it answers', async () => {
    proxy.freeze();
    try {
      await expectPerReplicaLimit();
    } finally {
      await expectRecovered();
    }
  });
});
