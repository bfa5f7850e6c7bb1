// For the delivery loop's tests: the loop over the in-memory stores (fake-stores.ts) with a sender that
// answers as told and notes when each delivery went.
import { randomUUID } from 'node:crypto';
import { createLogger, createMetrics, type SecretBox } from '@cluster/platform';
import type { FakeStores } from '../fake-stores.ts';
import { createDeliveryMetrics } from '../metrics.ts';
import type { HttpSender, SendResult } from '../sender/http-sender.ts';
import { ORG, testSubscription } from '../shared/test-fixtures.ts';
import type { NewDelivery } from '../features/deliveries/queue-store.ts';
import type { SubscriptionRow } from '../features/subscriptions/store.ts';
import { createDispatcher } from './dispatcher.ts';

const secrets = { open: () => 'secret', seal: () => 'sealed', keyIds: ['k'] } satisfies SecretBox;

/** A loop over `stores` whose sender answers with `answer` and notes when each delivery of a subscription went. */
export function loop(stores: FakeStores, answer: (url: string, n: number) => Partial<SendResult> = () => ({})) {
  const sent: { url: string; at: number }[] = [];
  const sender: HttpSender = {
    send: async (url) => {
      sent.push({ url, at: Date.now() });
      return { ok: true, responseCode: 200, responseBody: '', error: null, durationMs: 1, ...answer(url, sent.length - 1) };
    },
    close: async () => {},
  };
  const dispatcher = createDispatcher({
    deliveries: stores.deliveryQueue,
    attempts: stores.attempts,
    sender,
    secrets,
    metrics: createDeliveryMetrics(createMetrics('delivery'), stores.deliveryQueue),
    logger: createLogger('delivery', 'silent'),
    retry: { baseMs: 1000, maxAgeMs: 60_000, maxStepMs: 10_000 },
    concurrency: 16,
    perDestinationConcurrency: 16,
    leaseMs: 10_000,
    pollMs: 20,
  });
  return { dispatcher, sent };
}

/** A subscription of `stores` with `n` deliveries due (each with `delivery`'s fields, e.g. an orderKey). */
export async function subscribe(
  stores: FakeStores,
  over: Partial<SubscriptionRow>,
  n: number,
  delivery: Partial<NewDelivery> = {},
): Promise<SubscriptionRow> {
  const sub = testSubscription(over);
  stores.subscriptions.rows.push(sub);
  await stores.deliveryQueue.insertMany(
    Array.from({ length: n }, () => ({
      id: randomUUID(),
      organizationId: ORG,
      subscriptionId: sub.id,
      eventId: randomUUID(),
      eventName: 'entry.created',
      body: '{}',
      ...delivery,
    })),
  );
  return sub;
}
