import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, ensureDatabase, migrate, type Knex } from '@cluster/db';
import { migrations } from '../services/delivery/src/migrations/index.ts';
import { CLAIM_SQL, claimBindings } from '../services/delivery/src/features/deliveries/queue-store.ts';
import { dropDatabase, freshDatabaseUrl } from './support/cluster.ts';

// The sender's claim runs every few milliseconds under load, against a table that keeps
// weeks of deliveries. It must reach rows through indexes only: a join in it was once
// planned as a sequential scan of the whole table, on every claim (8 ms at 5,000 rows,
// growing with the table).
const ORIGIN = 'http://receiver.example.test';
const databaseUrl = freshDatabaseUrl('claimplan');
let db: Knex;

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  db = createDb(databaseUrl, { schema: 'delivery', poolMax: 2 });
  await migrate(db, 'delivery', migrations);
  const [sub] = await db('delivery.subscriptions')
    .insert({
      organizationId: '00000000-0000-4000-8000-000000000001',
      destinationUrl: `${ORIGIN}/hook`,
      destinationOrigin: ORIGIN,
      eventNames: ['entry.created'],
      secretSealed: 'sealed',
    })
    .returning('id');
  // A backlog: 5,000 due deliveries, and 20,000 finished ones beside them.
  await db.raw(
    `INSERT INTO delivery.deliveries (id, "organizationId", "subscriptionId", "eventId", "eventName", body, status, "nextAttemptAt")
     SELECT gen_random_uuid(), '00000000-0000-4000-8000-000000000001', ?, gen_random_uuid(), 'entry.created', repeat('x', 500),
            CASE WHEN g <= 5000 THEN 'pending' ELSE 'succeeded' END, CASE WHEN g <= 5000 THEN now() - interval '1 second' END
       FROM generate_series(1, 25000) AS g`,
    [sub.id],
  );
  await db.raw('ANALYZE delivery.deliveries');
  await db.raw('ANALYZE delivery.subscriptions');
});
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(databaseUrl);
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe('the sender claim statement', () => {
  // A refill of one origin (a small window) and a replica with room for a large batch.
  it.each([
    { shape: 'a refill', limit: 160, cap: 16 },
    { shape: 'a large batch', limit: 2000, cap: 1000 },
  ])('reads deliveries through indexes only for $shape, never a sequential scan of the table', async ({ limit, cap }) => {
    const { bindings } = claimBindings({ limit, leaseMs: 60_000, defaultCap: 48, caps: new Map([[ORIGIN, cap]]) });
    const { rows } = await db.raw(`EXPLAIN (FORMAT JSON) ${CLAIM_SQL}`, bindings);
    const plan = nodes(rows[0]['QUERY PLAN'][0].Plan as PlanNode);
    // The table is partitioned by day (migration 018): the partitions that hold rows (today's) are the ones
    // read; a scan of an empty one (the days ahead, the default) reads no page.
    const { rows: held } = await db.raw<{ rows: { name: string }[] }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'delivery.deliveries'::regclass AND c.reltuples > 0`,
    );
    const populated = new Set(held.map((r) => r.name));
    expect(populated.size).toBeGreaterThan(0);
    const onDeliveries = plan.filter((n) => populated.has(n['Relation Name'] ?? '')).map((n) => n['Node Type']);
    expect(onDeliveries.length).toBeGreaterThan(0);
    expect(onDeliveries).not.toContain('Seq Scan');
  });
});
