import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, ensureDatabase, isLockTimeout, migrate, type Knex, type Migration } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl } from './support/cluster.ts';

// Issue 38, finding 11: a migration that needs a lock a serving pod holds (an ALTER TABLE behind a long
// transaction) must not stall every query on that table behind it. The migration's connection has a
// lock_timeout (DB_MIGRATION_LOCK_TIMEOUT_MS): it gives up, rolls back and tries again after a pause;
// meanwhile readers of the table get through. Real Postgres, a real lock.

const SCHEMA = 'locks';
const databaseUrl = freshDatabaseUrl('miglocks');
let db: Knex;
const clients: pg.Client[] = [];

const createTable: Migration = {
  name: '001_table',
  up: (k) => k.schema.withSchema(SCHEMA).createTable('things', (t) => t.increments('id')),
};
const addColumn: Migration = {
  name: '002_column',
  up: (k) => k.schema.withSchema(SCHEMA).alterTable('things', (t) => t.integer('size')),
};

/** A connection of a "serving pod" on the test database. */
async function connection(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  clients.push(c);
  return c;
}

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  db = createDb(databaseUrl, { schema: SCHEMA, poolMax: 1, lockTimeoutMs: 300 });
  await migrate(db, SCHEMA, [createTable]);
});
afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {});
  await db?.destroy();
  await dropDatabase(databaseUrl);
});

describe('migrations under a lock held by a serving transaction', () => {
  it('give up after lock_timeout and retry, readers passing meanwhile, and finish once the lock is free', async () => {
    const pod = await connection();
    await pod.query('BEGIN');
    await pod.query(`SELECT count(*) FROM ${SCHEMA}.things`); // ACCESS SHARE until COMMIT: the ALTER must wait
    const retries: number[] = [];
    const migrating = migrate(db, SCHEMA, [createTable, addColumn], {
      retry: { delayMs: 200, maxDelayMs: 400, attempts: 30, onRetry: (_err, attempt) => retries.push(attempt) },
    });
    // While the ALTER retries, another reader gets through within a bound (never queued behind it for good).
    const reader = await connection();
    await reader.query('SET statement_timeout = 2000');
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = Date.now();
      await reader.query(`SELECT count(*) FROM ${SCHEMA}.things`);
      waits.push(Date.now() - t0);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(retries.length).toBeGreaterThanOrEqual(2);
    await pod.query('COMMIT');
    await migrating;
    const { rows } = await reader.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'things' ORDER BY 1`,
      [SCHEMA],
    );
    expect(rows.map((r: { column_name: string }) => r.column_name)).toEqual(['id', 'size']);
    expect(Math.max(...waits)).toBeLessThan(1500);
  });

  it('give up for good after the last attempt, naming the lock timeout, with the schema as it was', async () => {
    const pod = await connection();
    await pod.query('BEGIN');
    await pod.query(`SELECT count(*) FROM ${SCHEMA}.things`);
    const dropColumn: Migration = {
      name: '003_drop',
      up: (k) => k.schema.withSchema(SCHEMA).alterTable('things', (t) => t.dropColumn('size')),
    };
    const failed = await migrate(db, SCHEMA, [createTable, addColumn, dropColumn], {
      retry: { delayMs: 50, attempts: 2 },
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    await pod.query('COMMIT');
    expect(isLockTimeout(failed)).toBe(true);
    const { rows } = await pod.query(`SELECT name FROM ${SCHEMA}.knex_migrations ORDER BY id`);
    expect(rows.map((r: { name: string }) => r.name)).toEqual(['001_table', '002_column']);
    // And the next run (the Job's retry, a pod's restart) takes it from there.
    await migrate(db, SCHEMA, [createTable, addColumn, dropColumn]);
    const after = await pod.query(`SELECT name FROM ${SCHEMA}.knex_migrations ORDER BY id`);
    expect(after.rows).toHaveLength(3);
  });
});
