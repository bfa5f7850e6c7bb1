import { describe, expect, it } from 'vitest';
import { createFakeStores } from '../../fake-stores.ts';
import { testSubscription } from '../../shared/test-fixtures.ts';
import { createSubscriptionHealth } from './health.ts';

const HOUR = 3_600_000;

function setup() {
  const stores = createFakeStores();
  const health = createSubscriptionHealth(stores, { failingAfterFailures: 3, disableAfterMs: 120 * HOUR });
  const events = () => stores.written.flatMap((w) => w.events.map((e) => e.eventName));
  return { stores, health, events };
}

describe('subscription health (fake stores)', () => {
  it('a 410 disables once, with the reason, an event and the system’s audit record', async () => {
    const { stores, health, events } = setup();
    const sub = testSubscription();
    stores.subscriptions.rows.push(sub);
    expect(await health.disableGone(sub.id)).toBe(true);
    expect(await health.disableGone(sub.id)).toBe(false);
    expect(stores.subscriptions.rows[0]).toMatchObject({ enabled: false, disabledReason: 'gone' });
    expect(events()).toEqual(['webhook.subscription.disabled']);
    const audit = stores.written.flatMap((w) => w.rows.map((r) => r.row));
    expect(audit).toMatchObject([{ action: 'disabled', metadata: { disabledReason: 'gone', actorType: 'system' } }]);
  });

  it('announces a run of failures once it reaches the threshold, and disables after the period', async () => {
    const { stores, health, events } = setup();
    const now = new Date('2026-11-25T12:00:00Z');
    const early = testSubscription({ consecutiveFailures: 2, failingSince: new Date(now.getTime() - HOUR) });
    const failing = testSubscription({ consecutiveFailures: 3, failingSince: new Date(now.getTime() - HOUR) });
    const dead = testSubscription({ consecutiveFailures: 40, failingSince: new Date(now.getTime() - 121 * HOUR) });
    stores.subscriptions.rows.push(early, failing, dead);
    expect(await health.sweep(now)).toEqual({ failing: 2, disabled: 1 });
    expect(await health.sweep(now)).toEqual({ failing: 0, disabled: 0 });
    expect(events().sort()).toEqual([
      'webhook.subscription.disabled',
      'webhook.subscription.failing',
      'webhook.subscription.failing',
    ]);
    expect(stores.subscriptions.rows.map((r) => [r.enabled, r.disabledReason])).toEqual([
      [true, null],
      [true, null],
      [false, 'failing'],
    ]);
  });
});
