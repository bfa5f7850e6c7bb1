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
  'Subplan Name'?: string;
  'Actual Loops'?: number;
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
    // The table is partitioned by week (migration 018): the partitions that hold rows (this week's) are the ones
    // read; a scan of an empty one (the weeks ahead, the default) reads no page.
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

  it('finds each picked row again in its own week only: the lookups name the time too', async () => {
    // Rows in two weeks: the 5,000 due ones of this week, and 100 due ones of three weeks ago (its partition made
    // as the upkeep would). Without the time in the lookups, every week's index is probed once per claim.
    const [{ id: sub }] = await db('delivery.subscriptions').select('id');
    const past = new Date(Date.now() - 21 * 86_400_000);
    await db.raw('SELECT delivery.delivery_partition_create(?::date)', [past.toISOString().slice(0, 10)]);
    await db.raw(
      `INSERT INTO delivery.deliveries (id, "organizationId", "subscriptionId", "eventId", "eventName", body, status, "nextAttemptAt", "createdAt")
       SELECT gen_random_uuid(), '00000000-0000-4000-8000-000000000001', ?, gen_random_uuid(), 'entry.created', 'x', 'pending',
              now() - interval '1 hour', ?::timestamptz FROM generate_series(1, 100)`,
      [sub, past],
    );
    await db.raw('ANALYZE delivery.deliveries');
    const { bindings } = claimBindings({ limit: 16, leaseMs: 60_000, defaultCap: 48, caps: new Map() });
    const trx = await db.transaction();
    try {
      const { rows } = await trx.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${CLAIM_SQL}`, bindings);
      const root = rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      // The 16 oldest due rows are those of three weeks ago: their week's partition is the one probed.
      const ctes = nodes(root).filter((n) => n['Subplan Name'] === 'CTE picked' || n['Subplan Name'] === 'CTE leased');
      expect(ctes).toHaveLength(2);
      for (const cte of ctes) {
        const probes = nodes(cte).filter((n) => n['Relation Name']?.startsWith('deliveries_') && (n['Actual Loops'] ?? 0) > 0);
        expect(probes.map((n) => n['Relation Name'])).toEqual([`deliveries_${weekOf(past)}`]);
      }
    } finally {
      await trx.rollback();
    }
  });
});

/** The partition suffix of the week (Monday, UTC) holding `at` (migration 018's names: pYYYYMMDD). */
function weekOf(at: Date): string {
  const monday = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - ((at.getUTCDay() + 6) % 7)));
  return `p${monday.toISOString().slice(0, 10).replace(/-/g, '')}`;
}
