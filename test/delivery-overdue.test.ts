import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, ensureDatabase, migrate, type Knex } from '@cluster/db';
import { migrations } from '../services/delivery/src/migrations/index.ts';
import { createDeliveryQueueStore, type DeliveryQueueStore } from '../services/delivery/src/features/deliveries/queue-store.ts';
import { createFakeDeliveryQueueStore } from '../services/delivery/src/features/deliveries/fake-queue-store.ts';
import { testSubscription } from '../services/delivery/src/shared/test-fixtures.ts';
import type { SubscriptionRow } from '../services/delivery/src/features/subscriptions/store.ts';
import { dropDatabase, freshDatabaseUrl } from './support/cluster.ts';

// The overdue metric (delivery_webhook_oldest_overdue_age_seconds, alert WebhookDeliveriesOverdue)
// on a real Postgres and on the fake: a receiver that is down or slow does not raise it; an origin
// nobody is sending to does.
const ORG = '00000000-0000-4000-8000-0000000000a2';
const databaseUrl = freshDatabaseUrl('deliveryoverdue');
let db: Knex;

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  db = createDb(databaseUrl, { schema: 'delivery', poolMax: 1 });
  await migrate(db, 'delivery', migrations);
});
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(databaseUrl);
});

const min = 60_000;
/** One delivery's schedule, relative to now. */
interface Row {
  origin: string;
  dueInMs: number | null;
  leasedForMs?: number;
}
const ORIGINS = ['https://down.example', 'https://slow.example', 'https://neglected.example', 'https://off.example'];
/** Down: its retry is later. Slow: one due row waits, another is being sent. Neglected: due 7 and 3 minutes ago, nothing sent. Off: disabled. */
const SCENARIO: Row[] = [
  { origin: ORIGINS[0], dueInMs: 30 * min },
  { origin: ORIGINS[1], dueInMs: -20 * min },
  { origin: ORIGINS[1], dueInMs: -25 * min, leasedForMs: min },
  { origin: ORIGINS[2], dueInMs: -7 * min },
  { origin: ORIGINS[2], dueInMs: -3 * min },
  { origin: ORIGINS[2], dueInMs: null },
  { origin: ORIGINS[3], dueInMs: -60 * min },
];

/** Seconds between now and the store's answer. */
async function ageOf(store: DeliveryQueueStore): Promise<number | null> {
  const at = await store.oldestUnservedDueAt();
  return at ? Math.round((Date.now() - at.getTime()) / 1000) : null;
}

describe('oldest unserved due delivery', () => {
  it('is the neglected origin, in Postgres', async () => {
    const subs = new Map<string, string>();
    for (const origin of ORIGINS) {
      const [row] = await db('delivery.subscriptions')
        .insert({
          organizationId: ORG,
          destinationUrl: `${origin}/in`,
          destinationOrigin: origin,
          eventNames: ['entry.created'],
          secretSealed: 'sealed',
          enabled: origin !== ORIGINS[3],
        })
        .returning('id');
      subs.set(origin, (row as { id: string }).id);
    }
    const store = createDeliveryQueueStore(db);
    expect(await store.oldestUnservedDueAt()).toBeNull();
    await db('delivery.deliveries').insert(
      SCENARIO.map((r) => ({
        id: randomUUID(),
        organizationId: ORG,
        subscriptionId: subs.get(r.origin),
        eventId: randomUUID(),
        eventName: 'entry.created',
        body: '{}',
        status: 'pending',
        nextAttemptAt: r.dueInMs === null ? null : db.raw(`now() + (? * interval '1 millisecond')`, [r.dueInMs]),
        lockedUntil: r.leasedForMs ? db.raw(`now() + (? * interval '1 millisecond')`, [r.leasedForMs]) : null,
        leaseToken: r.leasedForMs ? randomUUID() : null,
      })),
    );
    expect(await ageOf(store)).toBeCloseTo(7 * 60, -1);
    // Once something of that origin is being sent, it is served.
    await db('delivery.deliveries')
      .where({ subscriptionId: subs.get(ORIGINS[2]) })
      .whereNotNull('nextAttemptAt')
      .orderBy('nextAttemptAt', 'desc')
      .limit(1)
      .update({ lockedUntil: db.raw(`now() + interval '1 minute'`), leaseToken: randomUUID() });
    expect(await store.oldestUnservedDueAt()).toBeNull();
  });

  it('is the neglected origin, in the fake', async () => {
    const subscriptions: SubscriptionRow[] = ORIGINS.map((origin) =>
      testSubscription({ destinationOrigin: origin, enabled: origin !== ORIGINS[3] }),
    );
    const now = Date.now();
    const store = createFakeDeliveryQueueStore(subscriptions);
    for (const r of SCENARIO) {
      await store.insertMany([
        {
          id: randomUUID(),
          organizationId: ORG,
          subscriptionId: subscriptions[ORIGINS.indexOf(r.origin)].id,
          eventId: randomUUID(),
          eventName: 'entry.created',
          body: '{}',
        },
      ]);
      const row = store.rows[store.rows.length - 1];
      row.nextAttemptAt = r.dueInMs === null ? null : new Date(now + r.dueInMs);
      if (r.leasedForMs) Object.assign(row, { lockedUntil: new Date(now + r.leasedForMs), leaseToken: randomUUID() });
    }
    expect(await ageOf(store)).toBeCloseTo(7 * 60, -1);
  });
});
