import { randomUUID } from 'node:crypto';
import { createLogger, createMetrics, type SecretBox } from '@cluster/platform';
import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../fake-stores.ts';
import { webhookEnvelope } from '../features/deliveries/envelope.ts';
import { createDeliveryMetrics } from '../metrics.ts';
import type { HttpSender } from '../sender/http-sender.ts';
import { ORG, testSubscription } from '../shared/test-fixtures.ts';
import { createDispatcher } from './dispatcher.ts';
import { firstAttemptDelaySeconds } from './first-attempt-delay.ts';

const at = new Date('2026-03-01T12:00:10.000Z');

/** A subscriber envelope as the fan-out writes it. */
function body(occurredAt: string, payload: Record<string, unknown> = {}): string {
  return JSON.stringify(
    webhookEnvelope(randomUUID(), {
      id: randomUUID(),
      eventName: 'entry.created',
      schemaVersion: 1,
      entityType: 'entry',
      entityId: randomUUID(),
      occurredAt,
      actorUserId: null,
      organizationId: ORG,
      projectId: null,
      payload,
    }),
  );
}

describe('first-attempt delay', () => {
  it("reads the envelope's own occurredAt, not a payload field of that name", () => {
    expect(firstAttemptDelaySeconds(body('2026-03-01T12:00:07.500Z', { occurredAt: '2000-01-01T00:00:00Z' }), at)).toBe(2.5);
    // Text in a value that looks like the field is escaped, so never matches.
    const tricky = JSON.stringify({
      id: 'x',
      entityId: '"occurredAt":"2000-01-01T00:00:00Z"',
      occurredAt: '2026-03-01T12:00:09Z',
    });
    expect(firstAttemptDelaySeconds(tricky, at)).toBe(1);
  });

  it('skips a body without a well-formed occurredAt, and counts clock skew as no delay', () => {
    expect(firstAttemptDelaySeconds('not json', at)).toBeUndefined();
    expect(firstAttemptDelaySeconds(body('yesterday'), at)).toBeUndefined();
    expect(firstAttemptDelaySeconds(JSON.stringify({ occurredAt: 12 }), at)).toBeUndefined();
    expect(firstAttemptDelaySeconds(body('2026-03-01T12:00:11Z'), at)).toBe(0);
  });

  it('is observed by the delivery loop on first attempts only, malformed bodies left out', async () => {
    const stores = createFakeStores();
    const sub = testSubscription();
    stores.subscriptions.rows.push(sub);
    const occurred = new Date(Date.now() - 3000).toISOString();
    const rows = [body(occurred), body(occurred), '{"broken":'].map((b) => ({
      id: randomUUID(),
      organizationId: ORG,
      subscriptionId: sub.id,
      eventId: randomUUID(),
      eventName: 'entry.created',
      body: b,
    }));
    await stores.deliveryQueue.insertMany(rows);
    // The second is a retry: its first attempt was observed when it was made.
    stores.deliveryQueue.rows[1].attempts = 2;
    const metrics = createDeliveryMetrics(createMetrics('delivery'), stores.deliveryQueue);
    const sender: HttpSender = {
      send: async () => ({ ok: true, responseCode: 200, responseBody: '', error: null, durationMs: 1 }),
      close: async () => {},
    };
    const secrets = { open: () => 'secret', seal: () => 'sealed', keyIds: ['k'] } satisfies SecretBox;
    const dispatcher = createDispatcher({
      deliveries: stores.deliveryQueue,
      attempts: stores.attempts,
      sender,
      secrets,
      metrics,
      logger: createLogger('delivery', 'silent'),
      retry: { baseMs: 1000, maxAgeMs: 60_000, maxStepMs: 10_000 },
      concurrency: 4,
      perDestinationConcurrency: 4,
      leaseMs: 10_000,
      pollMs: 20,
    });
    dispatcher.start();
    await expect.poll(() => stores.deliveryQueue.rows.every((r) => r.status === 'succeeded'), { timeout: 5000 }).toBe(true);
    await dispatcher.stop();
    const { values } = await metrics.firstAttemptDelay.get();
    const count = (le: number | string) => values.find((v) => v.metricName?.endsWith('_bucket') && v.labels.le === le)?.value;
    expect(values.find((v) => v.metricName?.endsWith('_count'))?.value).toBe(1);
    expect(count(2.5)).toBe(0);
    expect(count(10)).toBe(1);
  });
});
