import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, ensureDatabase, migrate, type Knex } from '@cluster/db';
import type { EventEnvelope } from '@cluster/contracts';
import { createLogger, createMetrics } from '@cluster/platform';
import { migrations } from '../services/delivery/src/migrations/index.ts';
import { createStores } from '../services/delivery/src/stores.ts';
import { deliveryIdFor } from '../services/delivery/src/features/deliveries/ids.ts';
import { fanOut } from '../services/delivery/src/fanout/fanout.ts';
import { createRetentionSweeper } from '../services/delivery/src/features/deliveries/retention.ts';
import { createDeliveryMetrics } from '../services/delivery/src/metrics.ts';
import { dropDatabase, freshDatabaseUrl } from './support/cluster.ts';

// The delivery rows themselves, on a real Postgres: how a fan-out names them, and what a
// claim writes. One connection, so the statistics read below are this test's own.
const ORG = '00000000-0000-4000-8000-0000000000a1';
const ORIGIN = 'http://receiver.example.test';
const databaseUrl = freshDatabaseUrl('deliveryrows');
let db: Knex;
let subs: string[];

function event(): EventEnvelope {
  const id = randomUUID();
  return {
    id,
    eventName: 'entry.created',
    schemaVersion: 1,
    entityType: 'entry',
    entityId: randomUUID(),
    occurredAt: new Date().toISOString(),
    actorUserId: null,
    organizationId: ORG,
    projectId: null,
    payload: { title: 'Crash on login' },
  };
}

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  db = createDb(databaseUrl, { schema: 'delivery', poolMax: 1 });
  await migrate(db, 'delivery', migrations);
  const rows = await db('delivery.subscriptions')
    .insert(
      [1, 2].map((i) => ({
        organizationId: ORG,
        destinationUrl: `${ORIGIN}/hook${i}`,
        destinationOrigin: ORIGIN,
        eventNames: ['entry.created'],
        secretSealed: 'sealed',
        createdAt: new Date(Date.now() - 60_000),
      })),
    )
    .returning('id');
  subs = rows.map((r: { id: string }) => r.id);
});
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(databaseUrl);
});

describe('delivery rows', () => {
  it('take their id from (event, subscription), so a fan-out done again creates nothing and keeps the id', async () => {
    const stores = createStores(db);
    const e = event();
    const first = await fanOut(stores, [e], { clockSkewMs: 2000 });
    expect(first.created).toBe(2);
    // A re-read Kafka message, or another replica reading it after a rebalance.
    const again = await fanOut(stores, [e, e], { clockSkewMs: 2000 });
    expect(again.created).toBe(0);
    const rows = await db('delivery.deliveries').where({ eventId: e.id }).select('id', 'subscriptionId', 'body');
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.id).toBe(deliveryIdFor(e.id, r.subscriptionId));
      // The envelope's id (and X-Service-Delivery-Id) is the delivery id.
      expect(JSON.parse(r.body).id).toBe(r.id);
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
    // A name-based (version 5) UUID.
    expect(rows[0].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deliveryIdFor(e.id, subs[0])).not.toBe(deliveryIdFor(randomUUID(), subs[0]));
  });

  it('are claimed by a heap-only update: a lease writes no index entry', async () => {
    const stores = createStores(db);
    await fanOut(stores, Array.from({ length: 20 }, event), { clockSkewMs: 2000 });
    const hot = async () => {
      // Statistics reach the shared view when the backend next goes idle; one connection, so it is ours.
      await db.raw('SELECT pg_stat_force_next_flush()');
      const { rows } = await db.raw(
        // Summed over the table's partitions (migration 018): each keeps its own counts.
        `SELECT sum(n_tup_upd)::int AS upd, sum(n_tup_hot_upd)::int AS hot FROM pg_stat_user_tables
          WHERE relid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'delivery.deliveries'::regclass)`,
      );
      return rows[0] as { upd: number; hot: number };
    };
    const before = await hot();
    const { deliveries } = await stores.deliveryQueue.claim({ limit: 40, leaseMs: 60_000, defaultCap: 40, caps: new Map() });
    expect(deliveries).toHaveLength(40);
    const after = await hot();
    expect(after.upd - before.upd).toBe(40);
    expect(after.hot - before.hot).toBe(40);
  });

  it('are deleted with their attempt logs once finished and past the retention period, never while retrying', async () => {
    const DAY = 86_400_000;
    const [sub] = await db('delivery.subscriptions')
      .insert({
        organizationId: ORG,
        destinationUrl: `${ORIGIN}/retention`,
        destinationOrigin: ORIGIN,
        eventNames: ['entry.created'],
        secretSealed: 'sealed',
        deletedAt: new Date(),
      })
      .returning('id');
    const ago = (days: number) => new Date(Date.now() - days * DAY);
    const row = (tag: string, createdAt: Date, extra: Record<string, unknown>) => ({
      id: randomUUID(),
      organizationId: ORG,
      subscriptionId: sub.id,
      eventId: randomUUID(),
      eventName: 'entry.created',
      body: JSON.stringify({ tag }),
      createdAt,
      ...extra,
    });
    const rows = [
      ...Array.from({ length: 5 }, () => row('old-succeeded', ago(40), { status: 'succeeded', attempts: 1 })),
      row('old-dead', ago(31), { status: 'dead_letter', attempts: 9 }),
      row('old-retrying', ago(40), { status: 'failed', attempts: 3, nextAttemptAt: new Date(Date.now() + 60_000) }),
      row('old-in-flight', ago(40), { status: 'pending', lockedUntil: new Date(Date.now() + 60_000), leaseToken: randomUUID() }),
      row('recent', ago(29), { status: 'succeeded', attempts: 1 }),
    ];
    const tagOf = (r: (typeof rows)[number]) => JSON.parse(r.body).tag as string;
    await db('delivery.deliveries').insert(rows);
    await db('delivery.attempts').insert(
      rows
        .filter((r) => tagOf(r) !== 'old-in-flight')
        .map((r) => ({
          deliveryId: r.id,
          deliveryCreatedAt: r.createdAt,
          attempt: 1,
          outcome: 'succeeded',
          durationMs: 3,
          attemptedAt: r.createdAt,
        })),
    );
    // Filtered counts (docs/webhooks.md, "Filters"): an hour older than the longest statistics window goes, a recent one stays.
    await createStores(db).subscriptions.addFiltered(new Map([[sub.id, 4]]), new Date(Date.now() - 8 * DAY));
    await createStores(db).subscriptions.addFiltered(new Map([[sub.id, 3]]), new Date());
    const metrics = createDeliveryMetrics(createMetrics('retention_test'), createStores(db).deliveryQueue);
    const sweeper = createRetentionSweeper({
      stores: createStores(db),
      metrics,
      logger: createLogger('test', 'silent'),
      retentionMs: 30 * DAY,
      intervalMs: 3_600_000,
      batchSize: 2,
    });
    // Batches of 2 over 6 expired rows: the sweep goes on until a batch comes back short.
    expect(await sweeper.sweep()).toBe(6);
    const left = await db('delivery.deliveries').where({ subscriptionId: sub.id }).select('body');
    expect(left.map((r) => JSON.parse(r.body).tag).sort()).toEqual(['old-in-flight', 'old-retrying', 'recent']);
    const attempts = await db('delivery.attempts')
      .whereIn(
        'deliveryId',
        rows.map((r) => r.id),
      )
      .select('deliveryId');
    // The attempt logs of the deleted rows went with them; those of the kept rows stay.
    expect(attempts.map((a) => a.deliveryId).sort()).toEqual(
      rows
        .filter((r) => tagOf(r) === 'old-retrying' || tagOf(r) === 'recent')
        .map((r) => r.id)
        .sort(),
    );
    expect((await metrics.pruned.get()).values[0].value).toBe(6);
    expect(await createStores(db).subscriptions.filteredSince(sub.id, new Date(Date.now() - 30 * DAY))).toBe(3);
    // Nothing more to do; 0 keeps everything.
    expect(await sweeper.sweep()).toBe(0);
    const keepAll = createRetentionSweeper({
      stores: createStores(db),
      metrics,
      logger: createLogger('test', 'silent'),
      retentionMs: 0,
      intervalMs: 1000,
    });
    expect(await keepAll.sweep()).toBe(0);
  });
});
