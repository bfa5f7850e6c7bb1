import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '@cluster/webhook-verify';
import { startProcessCluster, type ProcessCluster } from './support/process-cluster.ts';
import { createReceivers, type Receiver } from './support/receiver.ts';

// The private key of an ed25519 subscription never reaches a log: the services run as processes,
// as in production, at LOG_LEVEL=debug, through everything that touches the key (create, a delivery
// that fails then is retried, a test call, a rotation), and their whole output is searched for `whsk_`.
const receivers = createReceivers();
let cluster: ProcessCluster;
let receiver: Receiver;
let key: string;

beforeAll(async () => {
  receiver = await receivers.start();
  cluster = await startProcessCluster('edlog', {
    env: {
      LOG_LEVEL: 'debug',
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
      WEBHOOK_CLOCK_SKEW_MS: '0',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_POLL_MS: '100',
    },
  });
  ({ key } = await cluster.newOrg('Ed25519 logs'));
}, 180_000);
afterAll(async () => {
  await receivers.closeAll();
  await cluster?.stop();
});

const api = (method: string, path: string, body?: unknown) => cluster.api(key, method, path, body);

describe('an ed25519 subscription, with the services logging at debug', () => {
  it('delivers, retries, tests and rotates without any log line holding the private key', async () => {
    // The first attempt fails (a logged failure and a retry), every later one succeeds.
    receiver.respond((_r, index) => (index === 0 ? { status: 500, body: 'not yet' } : { status: 200, body: 'ok' }));
    const created = await api('POST', '/webhooks', {
      destinationUrl: receiver.url,
      eventNames: ['webhook.subscription.created'],
      signatureScheme: 'ed25519',
    });
    expect(created.status, created.text).toBe(201);
    const hookId = created.body.id as string;
    const publicKey = created.body.publicKey as string;
    // A second subscription's creation is an event the first one receives.
    const other = await api('POST', '/webhooks', { destinationUrl: 'https://example.com/other', eventNames: ['entry.created'] });
    expect(other.status).toBe(201);
    const [failed] = await receiver.waitFor(1, undefined, 30_000);
    const failedId = failed.headers['webhook-id'];
    expect(failedId).toEqual(expect.any(String));
    const [, retried] = await receiver.waitFor(2, (r) => r.headers['webhook-id'] === failedId, 30_000);
    expect(verify(retried.rawBody, retried.headers, publicKey).payload).toMatchObject({
      eventName: 'webhook.subscription.created',
    });

    expect((await api('POST', `/webhooks/${hookId}/test`)).status).toBe(200);
    const rotated = await api('POST', `/webhooks/${hookId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const tested = await api('POST', `/webhooks/${hookId}/test`);
    const [afterRotation] = await receiver.waitFor(1, (r) => r.headers['webhook-id'] === tested.body.deliveryId);
    expect(verify(afterRotation.rawBody, afterRotation.headers, [publicKey]).id).toBe(tested.body.deliveryId);
    expect(verify(afterRotation.rawBody, afterRotation.headers, [rotated.body.publicKey as string]).id).toBe(
      tested.body.deliveryId,
    );
    for (const answer of [created, rotated, tested]) expect(answer.text).not.toContain('whsk_');

    // The logs were captured while the key was in use (the gateway logged the rotation, the delivery
    // service its start), and none of the three holds a private key.
    const logs = [cluster.core, cluster.delivery, cluster.gateway].map((p) => p.output());
    expect(logs[2]).toContain(`/api/v1/webhooks/${hookId}/rotate-secret`);
    expect(logs[1]).toContain('delivery listening');
    for (const log of logs) expect(log).not.toContain('whsk_');
  });
});
