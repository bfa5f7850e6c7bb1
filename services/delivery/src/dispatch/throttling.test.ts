import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../fake-stores.ts';
import { loop, subscribe } from './loop-kit.ts';

// The delivery loop over the in-memory stores (their claim applies a subscription's limits as CLAIM_SQL does,
// held to it by queue-store.contract.test.ts): what a throttled or paused subscription gets, on the real clock.

describe('the delivery loop and a throttled subscription (fake stores)', () => {
  it('sends a rate-limited subscription one delivery per 1/rateLimit s, and another subscription at once', async () => {
    const stores = createFakeStores();
    const slow = await subscribe(stores, { rateLimit: 20, destinationUrl: 'https://slow.example/in' }, 8);
    await subscribe(stores, { destinationUrl: 'https://fast.example/in' }, 8);
    const { dispatcher, sent } = loop(stores);
    dispatcher.start();
    await expect.poll(() => stores.deliveryQueue.rows.every((r) => r.status === 'succeeded'), { timeout: 5000 }).toBe(true);
    await dispatcher.stop();
    const times = sent.filter((s) => s.url === slow.destinationUrl).map((s) => s.at);
    // Slots 50 ms apart; a send goes at its slot or a little later, never before: any 200 ms hold the 4
    // slots that start in them and at most one late send of an earlier slot, and 8 sends span 7 slots but one.
    const within = (ms: number) => Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + ms).length));
    expect(within(200)).toBeLessThanOrEqual(5);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(300);
    const fast = sent.filter((s) => s.url !== slow.destinationUrl).map((s) => s.at);
    expect(Math.max(...fast)).toBeLessThan(Math.max(...times));
  });

  it('pauses a subscription for a 429 with Retry-After, counting no failure, and sends the rest after the pause', async () => {
    const stores = createFakeStores();
    const paused = await subscribe(stores, { destinationUrl: 'https://paused.example/in', maxInFlight: 1 }, 3);
    let refused = false;
    // The first delivery to it is refused with a wish to wait 1 s; everything else is taken.
    const { dispatcher, sent } = loop(stores, (url) => {
      if (url !== paused.destinationUrl || refused) return {};
      refused = true;
      return { ok: false, responseCode: 429, error: 'HTTP 429', retryAfterMs: 1000 };
    });
    dispatcher.start();
    await expect.poll(() => stores.deliveryQueue.rows.every((r) => r.status === 'succeeded'), { timeout: 5000 }).toBe(true);
    await dispatcher.stop();
    const times = sent.map((s) => s.at);
    // The first was refused; nothing went until its pause (1 s) was over.
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(990);
    expect(sent).toHaveLength(4);
    expect(paused).toMatchObject({ consecutiveFailures: 0, failingSince: null });
    expect(paused.pausedUntil).toBeInstanceOf(Date);
    expect(stores.attempts.log.filter((a) => a.pausedMs !== null && a.pausedMs !== undefined)).toHaveLength(1);
  });
});
