import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { createReceivers, type Received, type Receiver } from './support/receiver.ts';

// Rotating a webhook's secret without downtime: during the grace period every delivery carries
// both Standard Webhooks signatures, so a receiver still on the old secret keeps verifying, with
// the reference library as the receiver's verifier; after it, only the new secret verifies.
const receivers = createReceivers();
let c: TestCluster;
let org: SeededOrg;
let receiver: Receiver;
let hookId: string;
let firstSecret: string;

beforeAll(async () => {
  c = await startTestCluster();
  org = await c.seedOrg('Rotation');
  receiver = await receivers.start();
  const hook = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
  expect(hook.status).toBe(201);
  hookId = hook.body.id as string;
  firstSecret = hook.body.hmacSecret as string;
}, 120_000);
afterAll(async () => {
  await receivers.closeAll();
  await c?.stop();
});

/** Makes an entry and returns the delivery its entry.created caused. */
async function nextDelivery(title: string): Promise<Received> {
  const entry = await c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, { title, description: '-', type: 'feedback' });
  expect(entry.status).toBe(201);
  const [got] = await receiver.waitFor(1, (r) => (r.body as { entityId?: string }).entityId === entry.body.id);
  return got;
}

/** Whether the reference library accepts the delivery with `secret`. */
function verifies(r: Received, secret: string): boolean {
  try {
    new Webhook(secret).verify(r.rawBody, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

const rotate = (body?: Record<string, unknown>) => c.api(org.key, 'POST', `/webhooks/${hookId}/rotate-secret`, body);

describe('rotating a webhook secret', () => {
  it('signs with both secrets during the grace period (the default: a day), X-Service-Signature with the new one', async () => {
    const rotated = await rotate();
    expect(rotated.status).toBe(200);
    const secret = rotated.body.hmacSecret as string;
    expect(secret).not.toBe(firstSecret);
    const got = await nextDelivery('inside the grace period');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(got, secret)).toBe(true);
    expect(verifies(got, firstSecret)).toBe(true);
    expect(got.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', secret).update(got.rawBody).digest('hex')}`);
    const audit = await c.api(org.key, 'GET', '/audit-events?entityType=webhook_subscription&action=secret_rotated');
    expect((audit.body.data as { metadata: Record<string, unknown> }[])[0].metadata).toMatchObject({
      gracePeriodSeconds: 86_400,
    });
  });

  it('signs with the new secret only once the grace period is over', async () => {
    const before = await rotate({ gracePeriodSeconds: 0 });
    const old = before.body.hmacSecret as string;
    const rotated = await rotate({ gracePeriodSeconds: 1 });
    const secret = rotated.body.hmacSecret as string;
    await new Promise((r) => setTimeout(r, 1500));
    const got = await nextDelivery('after the grace period');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(got, secret)).toBe(true);
    expect(verifies(got, old)).toBe(false);
  });

  it('rotates at once with a grace period of 0, and refuses one of more than 7 days', async () => {
    const previous = (await rotate({ gracePeriodSeconds: 0 })).body.hmacSecret as string;
    const now = (await rotate({ gracePeriodSeconds: 0 })).body.hmacSecret as string;
    const got = await nextDelivery('no grace');
    expect(verifies(got, now)).toBe(true);
    expect(verifies(got, previous)).toBe(false);
    for (const gracePeriodSeconds of [8 * 86_400, -1, 1.5, '60']) {
      const res = await rotate({ gracePeriodSeconds });
      expect(res.status, String(gracePeriodSeconds)).toBe(400);
      expect(res.body.reason).toBe('validation_error');
      expect(JSON.stringify(res.body.details)).toContain('/gracePeriodSeconds');
    }
  });
});
