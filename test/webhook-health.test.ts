import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@cluster/contracts';
import { expectCatalogued } from './support/catalogue.ts';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { sleep, until } from './support/poll.ts';
import { createReceivers, type Receiver } from './support/receiver.ts';

// Failing endpoints, against the real cluster and real HTTP receivers (docs/webhooks.md, "Failing
// endpoints"): a 410 Gone disables a subscription at once; a run of failed attempts is announced
// once (webhook.subscription.failing) and, when every attempt has failed for the whole period
// (7.2 s here instead of 120 h), the subscription is disabled; any success resets the run;
// re-enabling clears the state. Retries every 200-300 ms here.

const receivers = createReceivers();
let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster({
    env: {
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_STEP_MS: '300',
      WEBHOOK_FAILING_AFTER_FAILURES: '3',
      WEBHOOK_DISABLE_AFTER_HOURS: '0.002',
      WEBHOOK_HEALTH_SWEEP_MS: '300',
    },
  });
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  await c?.stop();
});

/** An organization with one subscription to `entry.created` at a receiver answering `status` (or per attempt). */
async function endpoint(name: string, status: (index: number) => number, delayMs: (index: number) => number = () => 0) {
  const org = await c.seedOrg(name);
  const receiver = await receivers.start();
  receiver.respond((_req, index) => ({ status: status(index), body: 'x', delayMs: delayMs(index) }));
  const hook = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
  expect(hook.status).toBe(201);
  return { org, receiver, id: hook.body.id as string };
}

const entry = (org: SeededOrg, title: string) =>
  c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { title, description: '-', type: 'feedback' });
const subscription = async (org: SeededOrg, id: string) => (await c.api(org.key, 'GET', `/webhooks/${id}`)).body;

const eventsOf = (id: string, name: string) => c.events.settle((e) => e.entityId === id && e.eventName === name, 800);

describe('a 410 Gone', () => {
  let org: SeededOrg;
  let receiver: Receiver;
  let id: string;

  it('disables the subscription at once: no retry, webhook.subscription.disabled, the system’s audit record', async () => {
    ({ org, receiver, id } = await endpoint('Gone', () => 410));
    expect((await entry(org, 'first')).status).toBe(201);
    const disabled = await until(
      () => subscription(org, id),
      (s) => s.enabled === false,
    );
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'gone', consecutiveFailures: 1 });
    const [event] = await eventsOf(id, 'webhook.subscription.disabled');
    expectCatalogued(event);
    expect(event).toMatchObject({
      organizationId: org.orgId,
      actorUserId: null,
      payload: { subscriptionId: id, enabled: false, disabledReason: 'gone', consecutiveFailures: 1 },
    });
    // No retry, and no new delivery while disabled.
    expect((await entry(org, 'second')).status).toBe(201);
    await sleep(1000);
    expect(receiver.received).toHaveLength(1);
    const deliveries = await c.api(org.key, 'GET', `/webhooks/${id}/deliveries`);
    expect(deliveries.body.data).toMatchObject([{ status: 'failed', responseCode: 410, nextAttemptAt: null, attempts: 1 }]);
    const audit = await until(
      () => c.api(org.key, 'GET', '/audit-events?entityType=webhook_subscription&action=disabled'),
      (r) => r.body.data.length > 0,
    );
    expect(audit.body.data).toMatchObject([
      { entityId: id, actorId: null, metadata: { actorType: 'system', disabledReason: 'gone' } },
    ]);
  });

  it('re-enabling clears the reason and the failures, and deliveries resume', async () => {
    receiver.respond(() => ({ status: 204 }));
    const patched = await c.api(org.key, 'PATCH', `/webhooks/${id}`, { enabled: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ enabled: true, disabledReason: null, consecutiveFailures: 0, failingSince: null });
    expect((await entry(org, 'third')).status).toBe(201);
    await receiver.waitFor(2);
  });
});

describe('a 410 Gone mid-retry', () => {
  it('stops the schedule there: no attempt after it, the subscription disabled', async () => {
    const { org, receiver, id } = await endpoint('Gone later', (i) => (i < 2 ? 503 : 410));
    expect((await entry(org, 'retried, then gone')).status).toBe(201);
    const disabled = await until(
      () => subscription(org, id),
      (s) => s.enabled === false,
    );
    expect(disabled).toMatchObject({ disabledReason: 'gone', consecutiveFailures: 3 });
    await sleep(1000);
    expect(receiver.received).toHaveLength(3);
    const deliveries = await c.api(org.key, 'GET', `/webhooks/${id}/deliveries`);
    expect(deliveries.body.data).toMatchObject([{ status: 'failed', attempts: 3, responseCode: 410, nextAttemptAt: null }]);
  });
});

describe('an endpoint that keeps failing', () => {
  it('is announced once at the threshold, then disabled when every attempt failed for the whole period', async () => {
    const { org, receiver, id } = await endpoint('Failing', () => 500);
    const started = Date.now();
    expect((await entry(org, 'doomed')).status).toBe(201);
    const failing = await until(
      () => subscription(org, id),
      (s) => s.consecutiveFailures >= 3,
    );
    expect(failing).toMatchObject({ enabled: true, disabledReason: null });
    expect(typeof failing.failingSince).toBe('string');
    // The countdown: failingSince + WEBHOOK_DISABLE_AFTER_HOURS (0.002 h = 7.2 s), in the statistics.
    const countdown = await c.api(org.key, 'GET', `/webhooks/${id}/stats`);
    expect(countdown.body.disablesAt).toBe(new Date(Date.parse(failing.failingSince as string) + 7_200).toISOString());
    const disabled = await until(
      () => subscription(org, id),
      (s) => s.enabled === false,
      20_000,
    );
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'failing' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(7_000);
    const notices: EventEnvelope[] = await eventsOf(id, 'webhook.subscription.failing');
    expect(notices).toHaveLength(1);
    expectCatalogued(notices[0]);
    expect(notices[0].payload).toMatchObject({ subscriptionId: id, enabled: true, failingSince: failing.failingSince });
    expect((notices[0].payload as { consecutiveFailures: number }).consecutiveFailures).toBeGreaterThanOrEqual(3);
    const [off] = await eventsOf(id, 'webhook.subscription.disabled');
    expect(off.payload).toMatchObject({ disabledReason: 'failing', enabled: false });
    // Its retries stopped, and new events are not sent to it.
    const attempts = receiver.received.length;
    expect((await entry(org, 'while disabled')).status).toBe(201);
    await sleep(1000);
    expect(receiver.received.length).toBe(attempts);
    // Re-enabled (the endpoint fixed), it receives again and starts afresh.
    receiver.respond(() => ({ status: 200 }));
    const enabled = await c.api(org.key, 'PATCH', `/webhooks/${id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, consecutiveFailures: 0, failingSince: null });
    expect((await entry(org, 'after re-enabling')).status).toBe(201);
    const got = (await receiver.waitFor(attempts + 1)).slice(attempts);
    expect((got[0].body as { payload: { title: string } }).payload.title).toBe('after re-enabling');
  }, 40_000);

  it('any success resets the run of failures; below the threshold nothing is announced', async () => {
    // The third attempt (a success) is answered after a second, so the state between is there to see.
    const { org, receiver, id } = await endpoint(
      'Flaky',
      (i) => (i < 2 ? 503 : 200),
      (i) => (i === 2 ? 1500 : 0),
    );
    expect((await entry(org, 'flaky')).status).toBe(201);
    await receiver.waitFor(2);
    const midway = await until(
      () => subscription(org, id),
      (s) => s.consecutiveFailures === 2,
    );
    expect(midway.consecutiveFailures).toBe(2);
    expect(midway.failingSince).not.toBeNull();
    await receiver.waitFor(3);
    const healed = await until(
      () => subscription(org, id),
      (s) => s.consecutiveFailures === 0,
    );
    expect(healed).toMatchObject({ enabled: true, consecutiveFailures: 0, failingSince: null, disabledReason: null });
    expect(await eventsOf(id, 'webhook.subscription.failing')).toEqual([]);
  });
});

describe('a receiver’s answer', () => {
  it('with NUL characters in its body is recorded (without them), not sent again', async () => {
    const { org, receiver, id } = await endpoint('Nul body', () => 200);
    receiver.respond(() => ({ status: 200, body: 'ok\u0000then' }));
    expect((await entry(org, 'nul answer')).status).toBe(201);
    const done = await until(
      () => c.api(org.key, 'GET', `/webhooks/${id}/deliveries`),
      (r) => r.body.data?.[0]?.status === 'succeeded',
    );
    expect(done.body.data).toMatchObject([{ status: 'succeeded', attempts: 1, responseBody: 'okthen' }]);
    await sleep(500);
    expect(receiver.received).toHaveLength(1);
  });
});

describe('delivery statistics', () => {
  it('count a window’s deliveries by status, its attempts and their durations, the last success and failure', async () => {
    const { org, receiver, id } = await endpoint('Stats', (i) => (i < 2 ? 500 : 200));
    expect((await entry(org, 'retried')).status).toBe(201);
    await receiver.waitFor(3);
    expect((await entry(org, 'at once')).status).toBe(201);
    await receiver.waitFor(4);
    const stats = await until(
      () => c.api(org.key, 'GET', `/webhooks/${id}/stats`),
      (r) => r.body.deliveries?.succeeded === 2,
    );
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      subscriptionId: id,
      window: '24h',
      deliveries: { total: 2, pending: 0, succeeded: 2, failed: 0, dead_letter: 0 },
      successRatio: 1,
      attempts: { total: 4, succeeded: 2, failed: 2 },
    });
    const body = stats.body as { since: string; attempts: Record<string, number>; lastSuccessAt: string; lastFailureAt: string };
    // The window is whole hours of the clock, the current one last: it starts 23 to 24 hours ago, on the hour.
    expect(Date.parse(body.since) % 3_600_000).toBe(0);
    expect(Date.now() - Date.parse(body.since)).toBeGreaterThan(23 * 3_600_000);
    expect(Date.now() - Date.parse(body.since)).toBeLessThanOrEqual(24 * 3_600_000);
    expect(body.attempts.p50DurationMs).toBeGreaterThanOrEqual(0);
    expect(body.attempts.p95DurationMs).toBeGreaterThanOrEqual(body.attempts.p50DurationMs);
    expect(Date.parse(body.lastSuccessAt)).toBeGreaterThan(Date.parse(body.lastFailureAt));
    expect(body.attempts.p99DurationMs).toBeGreaterThanOrEqual(body.attempts.p95DurationMs);
    expect(stats.body.disablesAt).toBeNull(); // healthy
    // The last day by the hour: the deliveries in the last bucket, the buckets `since` + i hours.
    type Point = { start: string; delivered: number; failed: number; successRatio: number | null; p50DurationMs: number | null };
    const series = stats.body.series as { bucket: string; points: Point[] };
    expect(series.bucket).toBe('hour');
    expect(series.points).toHaveLength(24);
    expect(series.points.map((p) => Date.parse(p.start) - Date.parse(body.since))).toEqual(
      Array.from({ length: 24 }, (_, i) => i * 3_600_000),
    );
    expect(series.points[23]).toMatchObject({ delivered: 2, failed: 0, successRatio: 1 });
    expect(series.points[23].p50DurationMs).toBe(body.attempts.p50DurationMs);
    expect(series.points.slice(0, 23).every((p) => p.delivered + p.failed === 0 && p.successRatio === null)).toBe(true);
    const week = await c.api(org.key, 'GET', `/webhooks/${id}/stats?window=7d`);
    expect(week.body).toMatchObject({ window: '7d', deliveries: { total: 2 }, attempts: { total: 4 } });
    const days = week.body.series as { bucket: string; points: Point[] };
    expect([days.bucket, days.points.length, days.points[6].delivered]).toEqual(['day', 7, 2]);

    expect((await c.api(org.key, 'GET', `/webhooks/${id}/stats?window=1h`)).status).toBe(400);
    const other = await c.seedOrg('Stats other');
    expect((await c.api(other.key, 'GET', `/webhooks/${id}/stats`)).status).toBe(404);
    const scoped = await c.admin.createKey({ user: org.adminId, scope: 'project', project: org.projectId });
    expect((await c.api(scoped.key, 'GET', `/webhooks/${id}/stats`)).body.reason).toBe('scope_violation');
  });
});
