import { describe, expect, it } from 'vitest';
import type { OrderedKey } from '../features/deliveries/queue-store.ts';
import { createFakeStores } from '../fake-stores.ts';
import { loop, subscribe } from './loop-kit.ts';

// The delivery loop and an ordered key (docs/decisions-webhooks.md, "Ordering is a chain"): after it records
// the end of an ordered delivery, it looks again for the next one of that key, in a statement of its own.
describe('the delivery loop and an ordered subscription (fake stores)', () => {
  it('sends a key’s deliveries one after the other, looking for the next after each end is recorded', async () => {
    const stores = createFakeStores();
    const sub = await subscribe(stores, { ordering: 'per_entity', destinationUrl: 'https://ordered.example/in' }, 3, {
      orderKey: 'entry:1',
    });
    const looks: (readonly OrderedKey[] | undefined)[] = [];
    const release = stores.deliveryQueue.releaseWaiting.bind(stores.deliveryQueue);
    stores.deliveryQueue.releaseWaiting = async (keys) => {
      looks.push(keys);
      return release(keys);
    };
    const { dispatcher, sent } = loop(stores);
    dispatcher.start();
    await expect.poll(() => stores.deliveryQueue.rows.every((r) => r.status === 'succeeded'), { timeout: 5000 }).toBe(true);
    await dispatcher.stop();
    expect(sent).toHaveLength(3);
    expect(looks).toEqual([1, 2, 3].map(() => [{ subscriptionId: sub.id, orderKey: 'entry:1' }]));
  });
});
