import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { createReceivers, type Receiver } from './support/receiver.ts';

// Redeliver and recover (docs/webhooks.md), against the real cluster and a real receiver: deliveries
// that failed for good (dead-lettered after a 1 s retry period here) are sent again, one at once by
// id, or a whole window in the background; each time as a new attempt on the same delivery id.

const receivers = createReceivers();
let c: TestCluster;
let org: SeededOrg;
let receiver: Receiver;
let hookId: string;
const LIMIT = 6;

beforeAll(async () => {
  c = await startTestCluster({
    env: {
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_STEP_MS: '200',
      WEBHOOK_RETRY_MAX_AGE_MS: '1000',
      WEBHOOK_TEST_LIMIT_PER_HOUR: String(LIMIT),
    },
  });
  org = await c.seedOrg('Recovery');
  receiver = await receivers.start();
  receiver.respond(() => ({ status: 503, body: 'down' }));
  const hook = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
  hookId = hook.body.id as string;
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  await c?.stop();
});

const deliveries = async (status?: string) =>
  (await c.api(org.key, 'GET', `/webhooks/${hookId}/deliveries${status ? `?status=${status}` : ''}`)).body.data as {
    id: string;
    status: string;
    attempts: number;
  }[];
const deliveryIdOf = (r: { headers: Record<string, unknown> }) => String(r.headers['x-service-delivery-id']);

describe('redeliver and recover', () => {
  let dead: { id: string; attempts: number }[];

  it('setup: three deliveries dead-letter against a receiver that is down', async () => {
    for (const title of ['one', 'two', 'three']) {
      expect(
        (await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { title, description: '-', type: 'feedback' }))
          .status,
      ).toBe(201);
    }
    dead = await until(
      () => deliveries('dead_letter'),
      (d) => d.length === 3,
    );
    expect(dead).toHaveLength(3);
  });

  it('redelivers one delivery now: a new attempt on the same id, in its attempt log, audited', async () => {
    receiver.respond(() => ({ status: 200, body: 'back' }));
    const target = dead[0];
    const before = receiver.received.length;
    const res = await c.api(org.key, 'POST', `/webhooks/${hookId}/deliveries/${target.id}/redeliver`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: target.id, status: 'succeeded', attempts: target.attempts + 1, nextAttemptAt: null });
    const log = res.body.attemptLog as { attempt: number; outcome: string }[];
    expect(log.at(-1)).toMatchObject({ attempt: target.attempts + 1, outcome: 'succeeded' });
    expect(receiver.received.slice(before).map(deliveryIdOf)).toEqual([target.id]);
    const audit = await until(
      () => c.api(org.key, 'GET', '/audit-events?entityType=webhook_delivery&action=redelivered'),
      (r) => r.body.data.length > 0,
    );
    expect(audit.body.data[0]).toMatchObject({ entityId: target.id, actorId: org.adminId, metadata: { subscriptionId: hookId } });
  });

  it('answers an unknown delivery or another organization’s subscription 404', async () => {
    expect((await c.api(org.key, 'POST', `/webhooks/${hookId}/deliveries/${hookId}/redeliver`)).status).toBe(404);
    const other = await c.seedOrg('Recovery other');
    expect((await c.api(other.key, 'POST', `/webhooks/${hookId}/deliveries/${dead[1].id}/redeliver`)).status).toBe(404);
    expect(
      (await c.api(other.key, 'POST', `/webhooks/${hookId}/recover`, { since: new Date(Date.now() - 3_600_000).toISOString() }))
        .status,
    ).toBe(404);
  });

  it('refuses a window outside the retention period or upside down, with 400', async () => {
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const old = await c.api(org.key, 'POST', `/webhooks/${hookId}/recover`, { since: at(-31 * 86_400_000) });
    expect(old.status).toBe(400);
    expect(old.body.message).toMatch(/retention period \(30 days\)/);
    expect((await c.api(org.key, 'POST', `/webhooks/${hookId}/recover`, { since: at(-1000), until: at(-2000) })).status).toBe(
      400,
    );
    expect((await c.api(org.key, 'POST', `/webhooks/${hookId}/recover`, {})).status).toBe(400);
  });

  it('recovers the rest of the window in the background: 202 at once, progress until completed, each sent again', async () => {
    const before = receiver.received.length;
    const res = await c.api(org.key, 'POST', `/webhooks/${hookId}/recover`, {
      since: new Date(Date.now() - 3_600_000).toISOString(),
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ subscriptionId: hookId, status: expect.stringMatching(/^(running|completed)$/) });
    const done = await until(
      () => c.api(org.key, 'GET', `/webhooks/${hookId}/recoveries/${res.body.id}`),
      (r) => r.body.status === 'completed',
    );
    expect(done.body).toMatchObject({ status: 'completed', requeued: 2, completedAt: expect.any(String) });
    const sent = await receiver.waitFor(before + 2);
    expect(sent.slice(before).map(deliveryIdOf).sort()).toEqual([dead[1].id, dead[2].id].sort());
    const all = await until(
      () => deliveries(),
      (d) => d.every((x) => x.status === 'succeeded'),
    );
    expect(all.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect((await c.api(org.key, 'GET', `/webhooks/${hookId}/recoveries/${hookId}`)).status).toBe(404);
  });

  it('refuses a disabled subscription (409), and counts against the on-demand budget (429)', async () => {
    await c.api(org.key, 'PATCH', `/webhooks/${hookId}`, { enabled: false });
    const refused = await c.api(org.key, 'POST', `/webhooks/${hookId}/deliveries/${dead[0].id}/redeliver`);
    expect(refused.status).toBe(409);
    await c.api(org.key, 'PATCH', `/webhooks/${hookId}`, { enabled: true });
    // Two calls so far (one redelivery, one recovery).
    const since = new Date(Date.now() - 60_000).toISOString();
    // A window with nothing to recover completes with 0.
    const empty = await c.api(org.key, 'POST', `/webhooks/${hookId}/recover`, { since });
    expect(empty.status).toBe(202);
    const emptyDone = await until(
      () => c.api(org.key, 'GET', `/webhooks/${hookId}/recoveries/${empty.body.id}`),
      (r) => r.body.status === 'completed',
    );
    expect(emptyDone.body).toMatchObject({ status: 'completed', requeued: 0 });
    for (let i = 3; i < LIMIT; i++) {
      expect((await c.api(org.key, 'POST', `/webhooks/${hookId}/recover`, { since })).status).toBe(202);
    }
    const over = await c.api(org.key, 'POST', `/webhooks/${hookId}/deliveries/${dead[0].id}/redeliver`);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
