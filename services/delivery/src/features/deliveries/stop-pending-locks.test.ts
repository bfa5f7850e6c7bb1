import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useContractDatabase } from '@cluster/db/store-contract';
import { migrations } from '../../migrations/index.ts';
import { addDue, addSubscription, postgresDeliveryWorld } from '../../shared/contract-world.ts';

// Postgres only (locks are the point): disabling a subscription while an attempt statement records one
// of its deliveries. The attempt statement (attempts/store.ts) locks the delivery, then the
// subscription's row for its health; the disabling locks the subscription, then stops its scheduled
// deliveries. Had stopPending waited for the delivery, the two would wait on each other and Postgres
// would abort one of them (40P01): a 500 to the PATCH, or a recorded attempt lost.
const database = useContractDatabase('delivery', migrations);

describe('disabling a subscription while an attempt of it is being recorded', () => {
  it('stops the other scheduled deliveries without waiting for the one being recorded, and neither side deadlocks', async () => {
    const db = database.db;
    const w = await postgresDeliveryWorld(db);
    const sub = await addSubscription(w);
    const [recording, scheduled] = await addDue(w, sub, [-60_000, 60_000]);

    // The attempt statement, stopped half way: its delivery is locked, the subscription not yet.
    const attempt = await db.transaction();
    await attempt('delivery.deliveries').where({ id: recording }).update({ attempts: 1 });

    let settled = false;
    const disabling = w.stores
      .transaction(async (tx) => {
        await tx.subscriptions.update(sub.id, { enabled: false });
        return tx.deliveryQueue.stopPending(sub.id, 'retries stopped: subscription disabled');
      })
      .finally(() => (settled = true));
    // Until the disabling has ended, or is waiting for a lock (holding the subscription's row).
    for (let i = 0; i < 100 && !settled; i++) {
      const { rows } = await db.raw<{ rows: unknown[] }>(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows.length) break;
      await sleep(50);
    }
    // The attempt statement goes on to the subscription's row (HEALTH_UPDATE's lock), and commits.
    await attempt.raw('SELECT id FROM delivery.subscriptions WHERE id = ? FOR UPDATE', [sub.id]);
    await attempt.commit();

    expect(await disabling).toBe(1);
    expect(await w.delivery(scheduled)).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect((await w.delivery(recording))?.attempts).toBe(1);
  });
});
