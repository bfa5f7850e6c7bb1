import { describe, expect, it } from 'vitest';
import { sealedPrefix } from '@cluster/platform';
import { testSubscription } from '../../shared/test-fixtures.ts';
import { createWebhookSecretBox } from '../../shared/webhook-secret-box.ts';
import { openReceiver, sealReceiver } from '../../sender/receiver.ts';
import { createFakeSubscriptionStore } from './fake-store.ts';
import { resealSecrets } from './reseal.ts';

describe('resealSecrets (fake store)', () => {
  it('moves the sealed custom headers and receiver auth too, under their own binding', async () => {
    const oldBox = createWebhookSecretBox(['key A']);
    const row = testSubscription();
    row.secretSealed = oldBox.seal('whsec_x', row.id);
    const settings = { headers: { 'X-Api-Key': 'k' }, auth: { type: 'bearer' as const, token: 't' } };
    row.receiverSealed = sealReceiver(oldBox, row.id, settings);
    const store = createFakeSubscriptionStore([row]);
    const rotated = createWebhookSecretBox(['key B', 'key A']);
    expect(await resealSecrets(store, rotated)).toMatchObject({ resealed: 2, unopenable: [] });
    const onlyB = createWebhookSecretBox(['key B']);
    expect(openReceiver(onlyB, row.id, store.rows[0].receiverSealed)).toEqual(settings);
    // Bound to its purpose: the signing secret's binding does not open it.
    expect(() => onlyB.open(store.rows[0].receiverSealed!, row.id)).toThrow();
  });

  it('moves every secret, deleted subscriptions included, to the current key without changing it', async () => {
    const oldBox = createWebhookSecretBox(['key A']);
    const rows = Array.from({ length: 5 }, (_, i) => testSubscription({ deletedAt: i === 0 ? new Date() : null }));
    for (const [i, row] of rows.entries()) row.secretSealed = oldBox.seal(`whsec_${i}`, row.id);
    const store = createFakeSubscriptionStore(rows);
    const rotated = createWebhookSecretBox(['key B', 'key A']);

    const report = await resealSecrets(store, rotated, 2);

    expect(report).toEqual({ currentKeyId: rotated.keyIds[0], resealed: 5, unopenable: [] });
    const onlyB = createWebhookSecretBox(['key B']);
    for (const [i, row] of store.rows.entries()) {
      expect(row.secretSealed.startsWith(sealedPrefix(onlyB.keyIds[0]))).toBe(true);
      expect(onlyB.open(row.secretSealed, row.id)).toBe(`whsec_${i}`);
    }
    expect(await resealSecrets(store, rotated, 2)).toMatchObject({ resealed: 0, unopenable: [] });
  });

  it('moves the previous secret of a rotation in its grace period too, and leaves an expired one alone', async () => {
    const oldBox = createWebhookSecretBox(['key A']);
    const inGrace = testSubscription();
    inGrace.secretSealed = oldBox.seal('whsec_new', inGrace.id);
    inGrace.previousSecretSealed = oldBox.seal('whsec_old', inGrace.id);
    inGrace.previousSecretUntil = new Date(Date.now() + 3_600_000);
    const expired = testSubscription();
    expired.secretSealed = oldBox.seal('whsec_current', expired.id);
    expired.previousSecretSealed = createWebhookSecretBox(['a removed key']).seal('whsec_gone', expired.id);
    expired.previousSecretUntil = new Date(Date.now() - 1000);
    const expiredPrevious = expired.previousSecretSealed;
    const store = createFakeSubscriptionStore([inGrace, expired]);
    const rotated = createWebhookSecretBox(['key B', 'key A']);

    expect(await resealSecrets(store, rotated)).toMatchObject({ resealed: 3, unopenable: [] });

    const onlyB = createWebhookSecretBox(['key B']);
    const [a, b] = [store.rows.find((r) => r.id === inGrace.id)!, store.rows.find((r) => r.id === expired.id)!];
    expect(onlyB.open(a.secretSealed, a.id)).toBe('whsec_new');
    expect(onlyB.open(a.previousSecretSealed!, a.id)).toBe('whsec_old');
    expect(onlyB.open(b.secretSealed, b.id)).toBe('whsec_current');
    expect(b.previousSecretSealed).toBe(expiredPrevious);
    expect(await resealSecrets(store, rotated)).toMatchObject({ resealed: 0, unopenable: [] });
  });

  it('reports secrets no listed key opens and leaves them as they are', async () => {
    const lost = testSubscription();
    lost.secretSealed = createWebhookSecretBox(['a removed key']).seal('whsec_lost', lost.id);
    const kept = lost.secretSealed;
    const store = createFakeSubscriptionStore([lost]);
    const report = await resealSecrets(store, createWebhookSecretBox(['key B', 'key A']));
    expect(report).toMatchObject({ resealed: 0, unopenable: [lost.id] });
    expect(store.rows[0].secretSealed).toBe(kept);
  });
});
