import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from '@cluster/db';
import { burst, coreDb, serviceProcess, type ServiceProcess } from './faults/support.ts';
import { requireEnv } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { startProcessCluster, type ProcessCluster } from './support/process-cluster.ts';
import { createReceivers, type Received } from './support/receiver.ts';

// Throttling the receiver asked for (docs/webhooks.md, "Throttling"), with the services as processes and TWO
// delivery replicas on one database: a subscription's rateLimit and maxInFlight hold for both together, and a
// receiver's 429 with Retry-After pauses that subscription alone, counted as no failure.
const receivers = createReceivers();
const ENV = {
  WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
  WEBHOOK_CLOCK_SKEW_MS: '0',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_POLL_MS: '100',
};
let cluster: ProcessCluster;
let second: ServiceProcess;
let key: string;
let orgId: string;
let core: Knex;

beforeAll(async () => {
  cluster = await startProcessCluster('thr', { env: ENV });
  // The second replica: the same database, topics and core as the cluster's own delivery service.
  second = await serviceProcess('delivery', {
    ...ENV,
    CLUSTER_ENV: 'development',
    DATABASE_URL: cluster.databaseUrl,
    KAFKA_BROKERS: requireEnv().brokers.join(','),
    KAFKA_TOPIC_PREFIX: cluster.topicPrefix,
    CORE_URL: `http://127.0.0.1:${cluster.core.port}`,
    LOG_LEVEL: 'warn',
  });
  await second.start();
  ({ key, orgId } = await cluster.newOrg('Throttling'));
  core = coreDb(cluster.databaseUrl);
}, 180_000);
afterAll(async () => {
  await receivers.closeAll();
  await core?.destroy();
  await second?.stop();
  await cluster?.stop();
});

const api = (method: string, path: string, body?: unknown) => cluster.api(key, method, path, body);

/** Creates a subscription to user.updated (the bursts' events) with these extra fields. */
async function subscribe(url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await api('POST', '/webhooks', { destinationUrl: url, eventNames: ['user.updated'], ...extra });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
}

/** Writes `n` user.updated events of the organization into the core's outbox. */
const events = (n: number) => burst(core, orgId, n, async () => {}, 10);

/** A counter of a replica's /metrics (summed over the labels given), 0 when absent. */
async function metric(port: number, name: string, label = ''): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(name) && l.includes(label))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

/** The largest number of arrivals in any window of `ms` that starts at an arrival (a sliding window). */
function mostWithin(arrivals: number[], ms: number): number {
  const t = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (j < t.length && t[j] < t[i] + ms) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

const ids = (list: Received[]) => new Set(list.map((r) => String(r.headers['webhook-id'])));

describe('webhook throttling across two delivery replicas', () => {
  it('refuses limits out of bounds with a 400 that points at the field', async () => {
    const r = await receivers.start();
    for (const [body, path] of [
      [{ rateLimit: 0 }, '/rateLimit'],
      [{ rateLimit: 10_001 }, '/rateLimit'],
      [{ rateLimit: 2.5 }, '/rateLimit'],
      [{ maxInFlight: 0 }, '/maxInFlight'],
      [{ maxInFlight: 'many' }, '/maxInFlight'],
    ] as const) {
      const res = await api('POST', '/webhooks', { destinationUrl: r.url, eventNames: ['user.updated'], ...body });
      expect(res.status, res.text).toBe(400);
      expect(res.body.reason ?? res.body.error).toBe('validation_error');
      expect(JSON.stringify(res.body.details)).toContain(path);
    }
    const id = await subscribe(r.url, { rateLimit: 3 });
    const patched = await api('PATCH', `/webhooks/${id}`, { maxInFlight: 2, rateLimit: null });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ rateLimit: null, maxInFlight: 2, pausedUntil: null });
    // Each case's subscriptions go when it ends: the later cases' events are theirs alone.
    expect((await api('DELETE', `/webhooks/${id}`)).status).toBe(204);
  });

  it('never sends more than rateLimit per second in all, and delivers everything', async () => {
    const N = 4;
    const TOTAL = 32;
    const r = await receivers.start();
    const id = await subscribe(r.url, { rateLimit: N });
    const before = await Promise.all(
      [cluster.delivery.port, second.port].map((p) => metric(p, 'delivery_webhook_deliveries_total', 'succeeded')),
    );
    await events(TOTAL);
    await r.waitFor(TOTAL, undefined, 60_000);
    const arrivals = r.received.map((x) => x.arrivedAt);
    expect(ids(r.received).size).toBe(TOTAL);
    // Rate slots are 1/N s apart in the database's time, given out by one locked row to both replicas; a
    // replica sends at its slot or a little later (its timer, the event loop, the connection), never before.
    // A window of 1 s can therefore hold the N slots that start in it plus one whose send was late into it
    // (a lateness under 1/N s = 250 ms; measured here: the first send of a run, on a cold connection and a
    // loaded machine, about 150 ms): N + 1.
    expect(mostWithin(arrivals, 1000)).toBeLessThanOrEqual(N + 1);
    // And over the whole run the pace held: TOTAL sends take at least (TOTAL - 1) / N seconds (less one slot).
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeGreaterThanOrEqual(((TOTAL - 2) * 1000) / N);
    // Both replicas sent some of them: the limit held for the two together.
    const after = await Promise.all(
      [cluster.delivery.port, second.port].map((p) => metric(p, 'delivery_webhook_deliveries_total', 'succeeded')),
    );
    expect(after[0] - before[0]).toBeGreaterThan(0);
    expect(after[1] - before[1]).toBeGreaterThan(0);
    console.log(
      `[throttle] rateLimit=${N}: most in any 1 s=${mostWithin(arrivals, 1000)} span=${Math.max(...arrivals) - Math.min(...arrivals)} ms ` +
        `sent by replica 1=${after[0] - before[0]} replica 2=${after[1] - before[1]}`,
    );
    const held = await Promise.all(
      [cluster.delivery.port, second.port].map((p) => metric(p, 'delivery_webhook_throttled_total', 'rate_limit')),
    );
    expect(held[0] + held[1]).toBeGreaterThan(0);
    expect((await api('DELETE', `/webhooks/${id}`)).status).toBe(204);
  }, 90_000);

  it('never has more than maxInFlight requests open at once, and delivers everything', async () => {
    const TOTAL = 20;
    const r = await receivers.start();
    r.respond(() => ({ status: 200, body: 'ok', delayMs: 150 }));
    const id = await subscribe(r.url, { maxInFlight: 2 });
    await events(TOTAL);
    await r.waitFor(TOTAL, undefined, 60_000);
    expect(ids(r.received).size).toBe(TOTAL);
    expect(r.maxInFlight()).toBeLessThanOrEqual(2);
    expect(r.maxInFlight()).toBe(2);
    expect((await api('DELETE', `/webhooks/${id}`)).status).toBe(204);
  }, 90_000);

  it('pauses a subscription for a 429 with Retry-After: 2, counted as no failure; others, same origin too, go on', async () => {
    const r = await receivers.start();
    const origin = new URL(r.url).origin;
    let throttledAt = 0;
    // The first request to /paused is refused with a wish to wait 2 s; everything else is taken.
    r.respond((req) => {
      if (req.path === '/paused' && throttledAt === 0) {
        throttledAt = Date.now();
        return { status: 429, body: 'slow down', headers: { 'retry-after': '2' } };
      }
      return { status: 200, body: 'ok' };
    });
    const paused = await subscribe(`${origin}/paused`);
    await subscribe(`${origin}/other`);
    const at = (path: string) => r.received.filter((x) => x.path === path);

    await events(1);
    // The pause is recorded with the 429's attempt: poll the subscription until it shows.
    const shown = await until(
      () => api('GET', `/webhooks/${paused}`),
      (res) => res.body.pausedUntil !== null,
    );
    const pausedUntil = Date.parse(shown.body.pausedUntil as string);
    expect(pausedUntil - throttledAt).toBeGreaterThan(1500);
    expect(pausedUntil - throttledAt).toBeLessThan(3000);
    expect(shown.body.consecutiveFailures).toBe(0);
    expect(shown.body.failingSince).toBeNull();

    // Events written during the pause: the other subscription (same origin) gets them at once.
    await events(10);
    await r.waitFor(11, (x) => x.path === '/other', 30_000);
    expect(at('/other').some((x) => x.arrivedAt < pausedUntil)).toBe(true);
    // The paused one gets all eleven, none before the pause ended.
    await r.waitFor(12, (x) => x.path === '/paused', 30_000);
    const resumed = at('/paused').slice(1);
    expect(ids(resumed).size).toBe(11);
    expect(Math.min(...resumed.map((x) => x.arrivedAt))).toBeGreaterThanOrEqual(pausedUntil - 50);

    // No failure counted toward auto-disable; the statistics and the metrics show the pause.
    const after = await until(
      () => api('GET', `/webhooks/${paused}`),
      (res) => res.body.enabled === true && res.body.consecutiveFailures === 0,
    );
    expect(after.body).toMatchObject({ enabled: true, consecutiveFailures: 0, failingSince: null });
    const stats = await api('GET', `/webhooks/${paused}/stats`);
    expect(stats.status, stats.text).toBe(200);
    expect(stats.body.throttling).toMatchObject({ pauses: 1 });
    expect(stats.body.throttling.pausedSeconds).toBeGreaterThanOrEqual(1.9);
    expect(stats.body.deliveries.succeeded).toBe(11);
    const counted = await Promise.all(
      [cluster.delivery.port, second.port].map((p) => metric(p, 'delivery_webhook_throttled_total', 'retry_after')),
    );
    expect(counted[0] + counted[1]).toBe(1);
    expect(await metric(cluster.delivery.port, 'delivery_webhook_paused_subscriptions')).toBeGreaterThanOrEqual(0);
    // The retried delivery's record: one throttled attempt, then a success.
    const list = await api('GET', `/webhooks/${paused}/deliveries?limit=50`);
    expect(list.body.data.every((d: { status: string }) => d.status === 'succeeded')).toBe(true);
  }, 90_000);
});
