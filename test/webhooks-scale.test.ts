import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeliveryConfig, startDelivery } from '@cluster/delivery';
import { startTestCluster, type TestCluster } from './support/cluster.ts';
import { createReceivers } from './support/receiver.ts';

// Two delivery replicas on one database and one consumer group.
let c: TestCluster;
let replica: Awaited<ReturnType<typeof startDelivery>>;
const receivers = createReceivers();
const receiver = () => receivers.start();

beforeAll(async () => {
  c = await startTestCluster({
    env: { WEBHOOK_PER_DESTINATION_CONCURRENCY: '2', WEBHOOK_TIMEOUT_MS: '4000', WEBHOOK_POLL_MS: '200' },
  });
  replica = await startDelivery({
    ...readDeliveryConfig(),
    port: 0,
    databaseUrl: c.databaseUrl,
    kafkaBrokers: c.brokers,
    topicPrefix: c.topicPrefix,
  });
});
afterAll(async () => {
  await replica?.shutdown.run('test');
  await receivers.closeAll();
  await c?.stop();
});

async function sentBy(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('delivery_webhook_deliveries_total') && l.includes('outcome="succeeded"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('several delivery replicas', () => {
  it('deliver every event once between them, never the same delivery twice', async () => {
    const org = await c.seedOrg('Replicas Org');
    const r = await receiver();
    const sub = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: r.url, eventNames: ['api_key.created'] });
    const before = [await sentBy(c.ports.delivery), await sentBy(replica.port)];
    const keys = [];
    for (let i = 0; i < 150; i++) keys.push(await c.admin.createKey({ user: org.adminId, scope: 'organization' }));
    await r.waitFor(150, () => true, 30000);
    await new Promise((res) => setTimeout(res, 500));
    const ids = r.received.map((g) => g.body.id as string);
    expect(new Set(ids).size).toBe(150);
    expect(ids).toHaveLength(150);
    expect(new Set(r.received.map((g) => g.body.entityId))).toEqual(new Set(keys.map((k) => k.id)));
    const after = [await sentBy(c.ports.delivery), await sentBy(replica.port)];
    const perReplica = after.map((a, i) => a - before[i]);
    console.log(`replicas sent ${perReplica.join(' + ')} = ${perReplica[0] + perReplica[1]} deliveries`);
    expect(perReplica[0] + perReplica[1]).toBe(150);
    const list = await c.api(org.key, 'GET', `/webhooks/${sub.body.id}/deliveries?status=succeeded&pageSize=1`);
    expect(list.body.total).toBe(150);
  });

  it('bound each destination, so a slow receiver does not hold up a fast one', async () => {
    const org = await c.seedOrg('Slow Org');
    const slow = await receiver();
    const fast = await receiver();
    slow.respond(() => ({ status: 200, delayMs: 1500 }));
    for (const r of [slow, fast]) {
      expect((await c.api(org.key, 'POST', '/webhooks', { destinationUrl: r.url, eventNames: ['api_key.created'] })).status).toBe(
        201,
      );
    }
    for (let i = 0; i < 16; i++) await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    await fast.waitFor(16, () => true, 10000);
    // All fast deliveries are done while the slow receiver still works through its backlog.
    expect(slow.received.length).toBeLessThan(16);
    await slow.waitFor(16, () => true, 30000);
    // Two replicas, two connections per destination each.
    expect(slow.maxInFlight()).toBeLessThanOrEqual(4);
    expect(slow.maxInFlight()).toBeGreaterThanOrEqual(2);
  });
});
