import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { createReceivers, type Receiver } from './support/receiver.ts';

// Opt-in ordered delivery (docs/webhooks.md, "Ordered delivery"), against the real cluster and a real
// receiver that fails the first two attempts of every delivery: with `ordering: per_entity`, one
// entry's deliveries arrive, and succeed, strictly in commit order, each only after the one before it
// succeeded, while another entry's deliveries flow beside them.

const receivers = createReceivers();
let c: TestCluster;
let org: SeededOrg;
let receiver: Receiver;
const UPDATES = 5;

beforeAll(async () => {
  c = await startTestCluster({ env: { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_STEP_MS: '200' } });
  org = await c.seedOrg('Ordering');
  receiver = await receivers.start();
  const seen = new Map<string, number>();
  receiver.respond((req) => {
    const id = String(req.headers['x-service-delivery-id']);
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return { status: n <= 2 ? 503 : 200 };
  });
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  await c?.stop();
});

type Arrival = { entityId: string; title: string; deliveryId: string; at: number };

describe('ordering: per_entity', () => {
  it('is off by default, and set and shown like any other field', async () => {
    const plain = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['webhook.test'] });
    expect(plain.body.ordering).toBe('none');
    const bad = await c.api(org.key, 'PATCH', `/webhooks/${plain.body.id}`, { ordering: 'sometimes' });
    expect(bad.status).toBe(400);
    const patched = await c.api(org.key, 'PATCH', `/webhooks/${plain.body.id}`, { ordering: 'per_entity' });
    expect(patched.body.ordering).toBe('per_entity');
    expect((await c.api(org.key, 'DELETE', `/webhooks/${plain.body.id}`)).status).toBe(204);
  });

  it('delivers each entity’s events in commit order under a failing receiver, without holding up other entities', async () => {
    const hook = await c.api(org.key, 'POST', '/webhooks', {
      destinationUrl: receiver.url,
      eventNames: ['entry.created', 'entry.updated'],
      ordering: 'per_entity',
    });
    expect(hook.status).toBe(201);
    // Two entries, each created then renamed UPDATES times: titles <name>0 .. <name>5, in commit order.
    const entities: Record<string, string> = {};
    for (const name of ['A', 'B']) {
      const created = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
        title: `${name}0`,
        description: '-',
        type: 'feedback',
      });
      entities[name] = created.body.id as string;
    }
    for (let i = 1; i <= UPDATES; i++) {
      for (const name of ['A', 'B']) {
        expect((await c.api(org.key, 'PATCH', `/entries/${entities[name]}`, { title: `${name}${i}` })).status).toBe(200);
      }
    }
    const total = 2 * (UPDATES + 1);
    // Every delivery is attempted three times (two 503s, then 200).
    await receiver.waitFor(total * 3, undefined, 60_000);
    const arrivals: Arrival[] = receiver.received.map((r) => {
      const body = r.body as { entityId: string; payload: { title: string } };
      return {
        entityId: body.entityId,
        title: body.payload.title,
        deliveryId: String(r.headers['x-service-delivery-id']),
        at: r.arrivedAt,
      };
    });
    for (const name of ['A', 'B']) {
      const mine = arrivals.filter((a) => a.entityId === entities[name]);
      const expected = Array.from({ length: UPDATES + 1 }, (_, i) => `${name}${i}`);
      // The order of first arrivals, and of successes, is the commit order ...
      const firsts = [...new Map(mine.map((a) => [a.deliveryId, a.title])).values()];
      expect(firsts).toEqual(expected);
      // ... and no attempt of a delivery comes before the one before it has succeeded (its third attempt).
      const titles = mine.map((a) => a.title);
      expect(titles).toEqual(expected.flatMap((t) => [t, t, t]));
    }
    // The other entity was not held up: B's first success came before A's last.
    const successOf = (title: string) => arrivals.filter((a) => a.title === title)[2].at;
    expect(successOf('B0')).toBeLessThan(successOf(`A${UPDATES}`));
  }, 90_000);
});
