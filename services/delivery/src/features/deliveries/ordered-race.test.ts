import { describe, expect, it } from 'vitest';
import { useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { addSubscription, attemptOf, newDelivery, postgresDeliveryWorld } from '../../shared/contract-world.ts';
import { createStores } from '../../stores.ts';

// Postgres only (snapshots are the point): the next ordered delivery of a key inserted while the end of
// the one before it is being recorded (docs/decisions-webhooks.md, "Ordering is a chain"). The insert
// sees the predecessor unfinished and waits; the record's release, in its own snapshot, cannot see the
// new row. Neither statement can release it, so the look each side takes after its commit must.
const database = useContractDatabase('delivery', migrations);

describe('an ordered delivery inserted while its predecessor’s end is being recorded', () => {
  it('is left waiting by both statements, and released by the look after the later commit', async () => {
    const db = database.db;
    const w = await postgresDeliveryWorld(db);
    const sub = await addSubscription(w, { ordering: 'per_entity' });
    const key = { subscriptionId: sub.id, orderKey: 'entry:1' };
    const first = newDelivery(sub, { orderKey: key.orderKey });
    await w.stores.deliveryQueue.insertMany([first]);
    const { deliveries } = await w.stores.deliveryQueue.claim({ limit: 1, leaseMs: 60_000, defaultCap: 1, caps: new Map() });
    expect(deliveries.map((d) => d.id)).toEqual([first.id]);

    // The sender records the first one's success (its release finds nothing waiting), not yet committed.
    const record = await db.transaction();
    expect(await createStores(record).attempts.recordAttempts([attemptOf(deliveries[0], true, { kind: 'succeeded' })])).toEqual(
      new Set([first.id]),
    );

    // The fan-out inserts the next one meanwhile: the first looks unfinished to it, so it waits. The
    // insert's statistics rollup row is the one the record holds (same subscription and hour), so the
    // insert blocks on it until the record commits; either way its snapshot was taken before.
    const next = newDelivery(sub, { orderKey: key.orderKey });
    let inserted = false;
    const inserting = w.stores.deliveryQueue.insertMany([next]).then(() => (inserted = true));
    const blocked = async () =>
      (
        await db.raw<{ rows: unknown[] }>(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      ).rows.length > 0;
    await expect.poll(async () => inserted || (await blocked()), { timeout: 5000 }).toBe(true);
    if (inserted) {
      // Not blocked (the hour turned between the two): the fan-out's look, before the record commits, finds nothing.
      expect((await w.delivery(next.id))?.nextAttemptAt).toBeNull();
      expect(await w.stores.deliveryQueue.releaseWaiting([key])).toBe(0);
    }
    await record.commit();
    await inserting;
    // Both statements have committed and the next one still waits: the race (before: until the sweep).
    expect(await w.delivery(first.id)).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
    expect((await w.delivery(next.id))?.nextAttemptAt).toBeNull();

    // The look after the later commit (here the fan-out's or the sender's: the same statement) sees both and releases it.
    expect(await w.stores.deliveryQueue.releaseWaiting([key])).toBe(1);
    expect((await w.delivery(next.id))?.nextAttemptAt).not.toBeNull();
  });
});
