import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, ensureDatabase, migrate, type Knex } from '@cluster/db';
import type { EventEnvelope } from '@cluster/contracts';
import { createLogger, createMetrics } from '@cluster/platform';
import { migrations } from '../services/delivery/src/migrations/index.ts';
import { createStores } from '../services/delivery/src/stores.ts';
import { deliveryIdFor } from '../services/delivery/src/features/deliveries/ids.ts';
import { webhookEnvelope } from '../services/delivery/src/features/deliveries/envelope.ts';
import { fanOut } from '../services/delivery/src/fanout/fanout.ts';
import { createPartitionKeeper, createRetentionSweeper } from '../services/delivery/src/features/deliveries/retention.ts';
import { createDeliveryMetrics } from '../services/delivery/src/metrics.ts';
import { dropDatabase, freshDatabaseUrl } from './support/cluster.ts';

// The partitioned delivery log (migration 018; docs/decisions-webhooks.md, "Partitioned delivery log"), on a
// real Postgres: the migration of a populated table, partitions made ahead, the drop of an expired day that
// keeps its unfinished deliveries, and the fan-out's idempotence across a day's boundary.
const ORG = '00000000-0000-4000-8000-0000000000b2';
const ORIGIN = 'http://receiver.example.test';
const DAY = 86_400_000;
const silent = createLogger('test', 'silent');
const urls: string[] = [];
const dbs: Knex[] = [];

async function freshDb(tag: string, upTo = migrations.length): Promise<Knex> {
  const url = freshDatabaseUrl(tag);
  urls.push(url);
  await ensureDatabase(url);
  const db = createDb(url, { schema: 'delivery', poolMax: 3 });
  dbs.push(db);
  await migrate(db, 'delivery', migrations.slice(0, upTo));
  return db;
}

afterAll(async () => {
  for (const db of dbs) await db.destroy();
  for (const url of urls) await dropDatabase(url);
});

/** Midnight UTC starting the week (Monday) of `d`. */
const weekStart = (d: Date) =>
  new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7)));
/** The partition suffix of the week of `d` (p20261123, its Monday). */
const suffixOf = (d: Date) => `p${weekStart(d).toISOString().slice(0, 10).replace(/-/g, '')}`;

/** The partition a delivery row lies in. */
async function partitionOf(db: Knex, id: string): Promise<string | undefined> {
  const { rows } = await db.raw<{ rows: { part: string }[] }>(
    `SELECT (SELECT relname FROM pg_class WHERE oid = d.tableoid) AS part FROM delivery.deliveries d WHERE d.id = ?`,
    [id],
  );
  return rows[0]?.part;
}

async function partitions(db: Knex, parent: 'deliveries' | 'attempts'): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { name: string }[] }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = ?::regclass ORDER BY 1`,
    [`delivery.${parent}`],
  );
  return rows.map((r) => r.name);
}

async function addSubscription(db: Knex, createdAt = new Date(Date.now() - 60 * DAY)): Promise<string> {
  const [sub] = await db('delivery.subscriptions')
    .insert({
      organizationId: ORG,
      destinationUrl: `${ORIGIN}/hook`,
      destinationOrigin: ORIGIN,
      eventNames: ['entry.created'],
      secretSealed: 'sealed',
      createdAt,
    })
    .returning('id');
  return sub.id as string;
}

function event(occurredAt: Date): EventEnvelope {
  return {
    id: randomUUID(),
    eventName: 'entry.created',
    schemaVersion: 1,
    entityType: 'entry',
    entityId: randomUUID(),
    occurredAt: occurredAt.toISOString(),
    actorUserId: null,
    organizationId: ORG,
    projectId: null,
    payload: { title: 'Crash on login', occurredAt: '1999-01-01T00:00:00.000Z' },
  };
}

describe('migration 018', () => {
  it('converts a populated delivery log: rows and attempts copied, an event delivery dated by its event, a re-read idempotent', async () => {
    const db = await freshDb('partmigrate', 17);
    const sub = await addSubscription(db);
    const now = Date.now();
    const e = event(new Date(now - 5 * DAY - 1500));
    const id = deliveryIdFor(e.id, sub);
    const rows = [
      // Fanned out 1.5 s after its event: its createdAt becomes the event's time.
      {
        id,
        eventId: e.id,
        body: JSON.stringify(webhookEnvelope(id, e)),
        createdAt: new Date(now - 5 * DAY),
        status: 'succeeded',
      },
      // Older than the migration's daily partitions (45 days): the archive partition.
      ...[60, 50].map((days) => ({
        id: randomUUID(),
        eventId: randomUUID(),
        body: '{}',
        createdAt: new Date(now - days * DAY),
        status: 'succeeded',
      })),
      // A test delivery has no event: its createdAt stays.
      { id: randomUUID(), eventId: null, body: '{"test":true}', createdAt: new Date(now - 2 * DAY), status: 'failed' },
      // Still retrying.
      {
        id: randomUUID(),
        eventId: randomUUID(),
        body: 'not json',
        createdAt: new Date(now - DAY),
        status: 'failed',
        nextAttemptAt: new Date(now + 60_000),
      },
    ];
    await db('delivery.deliveries').insert(
      rows.map((r) => ({ organizationId: ORG, subscriptionId: sub, eventName: 'entry.created', ...r })),
    );
    await db('delivery.attempts').insert(
      rows.map((r) => ({ deliveryId: r.id, attempt: 1, outcome: 'failed', durationMs: 7, attemptedAt: r.createdAt })),
    );

    await migrate(db, 'delivery', migrations);

    const after = await db('delivery.deliveries').select('id', 'createdAt', 'eventId', 'status', 'nextAttemptAt');
    expect(after).toHaveLength(rows.length);
    const byId = new Map(after.map((r) => [r.id as string, r]));
    expect(byId.get(id)!.createdAt.toISOString()).toBe(e.occurredAt);
    for (const r of rows.slice(1)) expect(byId.get(r.id)!.createdAt.getTime()).toBe(r.createdAt.getTime());
    expect(byId.get(rows[4].id)!.nextAttemptAt).not.toBeNull();
    // Every attempt came along, keyed by its delivery's (new) createdAt.
    const attempts = await db('delivery.attempts').select('deliveryId', 'deliveryCreatedAt');
    expect(attempts).toHaveLength(rows.length);
    for (const a of attempts) expect(a.deliveryCreatedAt.getTime()).toBe(byId.get(a.deliveryId)!.createdAt.getTime());
    expect(await createStores(db).attempts.listFor(id)).toHaveLength(1);

    // Weekly partitions from the oldest week kept to a week ahead, the archive, the default.
    const days = await partitions(db, 'deliveries');
    expect(days).toContain('deliveries_archive');
    expect(days).toContain('deliveries_default');
    expect(days).toContain(`deliveries_${suffixOf(new Date(now + 7 * DAY))}`);
    expect(days).toContain(`deliveries_${suffixOf(new Date(now - 45 * DAY))}`);
    expect(days).not.toContain(`deliveries_${suffixOf(new Date(now - 52 * DAY))}`);
    expect((await partitions(db, 'attempts')).map((n) => n.replace(/^attempts_/, ''))).toEqual(
      days.map((n) => n.replace(/^deliveries_/, '')),
    );
    expect(await partitionOf(db, rows[1].id)).toBe('deliveries_archive');
    expect(await partitionOf(db, id)).toBe(`deliveries_${suffixOf(new Date(e.occurredAt))}`);

    // The event read again after the upgrade (a consumer's uncommitted batch): no second delivery.
    expect((await fanOut(createStores(db), [e], { clockSkewMs: 2000 })).created).toBe(0);
    const [{ n }] = await db('delivery.deliveries').where({ eventId: e.id }).count({ n: '*' });
    expect(Number(n)).toBe(1);
  });
});

describe('the partitioned delivery log', () => {
  let db: Knex;
  let sub: string;
  beforeAll(async () => {
    db = await freshDb('partitions');
    sub = await addSubscription(db);
  });

  it('creates the coming days ahead, once across replicas, and an insert beyond them lands in the default partition', async () => {
    const metrics = createDeliveryMetrics(createMetrics('partitions_test'), createStores(db).deliveryQueue);
    const week = `deliveries_${suffixOf(new Date(Date.now() + 7 * DAY))}`;
    expect(await partitions(db, 'deliveries')).toContain(week);
    // The newest day gone (as if the migration had made one day less): two replicas' keepers at once make it once.
    expect(await createStores(db).deliveryRetention.dropPartition(suffixOf(new Date(Date.now() + 7 * DAY)), 0)).toBe(0);
    expect(await partitions(db, 'deliveries')).not.toContain(week);
    const keeper = () => createPartitionKeeper({ stores: createStores(db), metrics, logger: silent, intervalMs: 3_600_000 });
    const created = await Promise.all([keeper().ensure(), keeper().ensure()]);
    expect(created.sort()).toEqual([0, 1]);
    expect(await partitions(db, 'deliveries')).toContain(week);
    expect(await partitions(db, 'attempts')).toContain(week.replace('deliveries', 'attempts'));
    expect((await metrics.partitionsCreated.get()).values[0].value).toBe(1);
    expect(await keeper().ensure()).toBe(0);

    // An event 20 days ahead (a core's clock far off): no partition yet, the insert still lands.
    const far = new Date(Date.now() + 20 * DAY);
    const e = event(far);
    expect((await fanOut(createStores(db), [e], { clockSkewMs: 2000 })).created).toBe(1);
    const id = deliveryIdFor(e.id, sub);
    expect(await partitionOf(db, id)).toBe('deliveries_default');
    // Still one delivery when read again, and its day's partition, once made, takes it.
    expect((await fanOut(createStores(db), [e], { clockSkewMs: 2000 })).created).toBe(0);
    expect(await createStores(db).deliveryRetention.ensurePartitions(far, 0)).toBe(1);
    expect(await partitionOf(db, id)).toBe(`deliveries_${suffixOf(far)}`);
    expect((await fanOut(createStores(db), [e], { clockSkewMs: 2000 })).created).toBe(0);
  });

  it('keeps one delivery per (event, subscription) at a week boundary, however often and when the event is read', async () => {
    const midnight = weekStart(new Date());
    await createStores(db).deliveryRetention.ensurePartitions(new Date(midnight.getTime() - 1), 0);
    const late = event(new Date(midnight.getTime() - 1));
    const early = event(midnight);
    const stores = createStores(db);
    // Two replicas fanning out the same batch (in its order) at once, then a re-read.
    const runs = await Promise.all([
      fanOut(createStores(db), [late, early], { clockSkewMs: 2000 }),
      fanOut(createStores(db), [late, early], { clockSkewMs: 2000 }),
    ]);
    expect(runs[0].created + runs[1].created).toBe(2);
    expect((await fanOut(stores, [late, early, late], { clockSkewMs: 2000 })).created).toBe(0);
    expect(await partitionOf(db, deliveryIdFor(late.id, sub))).toBe(`deliveries_${suffixOf(new Date(midnight.getTime() - 1))}`);
    expect(await partitionOf(db, deliveryIdFor(early.id, sub))).toBe(`deliveries_${suffixOf(midnight)}`);
    const [{ n }] = await db('delivery.deliveries').whereIn('eventId', [late.id, early.id]).count({ n: '*' });
    expect(Number(n)).toBe(2);
  });

  it('drops a week past the retention with its attempts, and keeps its still scheduled delivery, which the sweep deletes once finished', async () => {
    const stores = createStores(db);
    const old = new Date(Date.now() - 40 * DAY);
    // The partition of the week 40 days back, as a service running then would have made it.
    expect(await stores.deliveryRetention.ensurePartitions(old, 0)).toBe(1);
    const part = suffixOf(old);
    const row = (extra: Record<string, unknown>) => ({
      id: randomUUID(),
      organizationId: ORG,
      subscriptionId: sub,
      eventId: randomUUID(),
      eventName: 'entry.created',
      body: '{}',
      createdAt: old,
      ...extra,
    });
    const done = Array.from({ length: 3 }, () => row({ status: 'succeeded', attempts: 1 }));
    const scheduled = row({ status: 'failed', attempts: 1, nextAttemptAt: new Date(Date.now() + 60_000) });
    // An attempt in flight (due, leased), and an ordered delivery waiting for its turn (nothing scheduled).
    const leased = row({
      status: 'pending',
      nextAttemptAt: new Date(),
      lockedUntil: new Date(Date.now() + 60_000),
      leaseToken: randomUUID(),
    });
    const waiting = row({ status: 'pending', orderKey: 'entry:1', orderSeq: 1 });
    const all = [...done, scheduled, leased, waiting];
    await db('delivery.deliveries').insert(all);
    await db('delivery.attempts').insert(
      [...done, scheduled].map((r) => ({
        deliveryId: r.id,
        deliveryCreatedAt: r.createdAt,
        attempt: 1,
        outcome: 'failed',
        durationMs: 5,
        attemptedAt: old,
      })),
    );
    for (const r of all) expect(await partitionOf(db, r.id)).toBe(`deliveries_${part}`);
    // A recent week stays: 29 days back is within the retention.
    const recent = new Date(Date.now() - 29 * DAY);
    expect(await stores.deliveryRetention.ensurePartitions(recent, 0)).toBe(1);
    const young = row({ createdAt: recent, status: 'succeeded' });
    await db('delivery.deliveries').insert(young);

    const metrics = createDeliveryMetrics(createMetrics('partitions_drop_test'), stores.deliveryQueue);
    const sweeper = (maxKeptPerPartition?: number) =>
      createRetentionSweeper({
        stores,
        metrics,
        logger: silent,
        retentionMs: 30 * DAY,
        intervalMs: 3_600_000,
        maxKeptPerPartition,
      });
    // More unfinished rows than allowed to move: the week waits.
    await sweeper(1).sweep();
    expect(await partitions(db, 'deliveries')).toContain(`deliveries_${part}`);
    expect((await metrics.partitionsDropped.get()).values[0].value).toBe(0);

    expect(await sweeper().sweep()).toBe(0);
    expect(await partitions(db, 'deliveries')).not.toContain(`deliveries_${part}`);
    expect(await partitions(db, 'attempts')).not.toContain(`attempts_${part}`);
    expect((await metrics.partitionsDropped.get()).values[0].value).toBe(1);
    expect((await metrics.partitionRowsKept.get()).values[0].value).toBe(3);
    const left = await db('delivery.deliveries').whereIn(
      'id',
      all.map((r) => r.id),
    );
    expect(left.map((r) => r.id).sort()).toEqual([scheduled.id, leased.id, waiting.id].sort());
    // Kept whole, in the default partition, with its attempt log.
    expect(await partitionOf(db, scheduled.id)).toBe('deliveries_default');
    expect(left.find((r) => r.id === scheduled.id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(await stores.attempts.listFor(scheduled.id)).toHaveLength(1);
    expect(
      await db('delivery.attempts').whereIn(
        'deliveryId',
        done.map((r) => r.id),
      ),
    ).toEqual([]);
    expect(await partitionOf(db, young.id)).toBe(`deliveries_${suffixOf(recent)}`);

    // Once it has finished, the next sweep deletes it, with its attempts, from the default partition.
    await db('delivery.deliveries').where({ id: scheduled.id }).update({ nextAttemptAt: null, status: 'dead_letter' });
    expect(await sweeper().sweep()).toBe(1);
    expect(await db('delivery.deliveries').where({ id: scheduled.id })).toEqual([]);
    expect(await db('delivery.attempts').where({ deliveryId: scheduled.id })).toEqual([]);
    expect(await partitionOf(db, leased.id)).toBe('deliveries_default');
    expect(await partitionOf(db, waiting.id)).toBe('deliveries_default');
    expect((await metrics.pruned.get()).values[0].value).toBe(1);
  });

  it('moves the attempts of a delivery whose createdAt changes, and deletes them with it', async () => {
    const stores = createStores(db);
    const e = event(new Date());
    await fanOut(stores, [e], { clockSkewMs: 2000 });
    const id = deliveryIdFor(e.id, sub);
    await db('delivery.attempts').insert({
      deliveryId: id,
      deliveryCreatedAt: new Date(e.occurredAt),
      attempt: 1,
      outcome: 'failed',
      durationMs: 5,
      attemptedAt: new Date(),
    });
    const earlier = new Date(Date.now() - 3 * DAY);
    await stores.deliveryRetention.ensurePartitions(earlier, 0);
    await db('delivery.deliveries').where({ id }).update({ createdAt: earlier });
    expect(await partitionOf(db, id)).toBe(`deliveries_${suffixOf(earlier)}`);
    const [a] = await db('delivery.attempts').where({ deliveryId: id });
    expect(a.deliveryCreatedAt.getTime()).toBe(earlier.getTime());
    await db('delivery.deliveries').where({ id }).delete();
    expect(await db('delivery.attempts').where({ deliveryId: id })).toEqual([]);
  });
});
