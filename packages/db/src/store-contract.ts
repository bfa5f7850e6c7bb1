import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createDb, ensureDatabase, migrate, pgConnectionConfig, type Knex, type Migration } from './index.ts';

/**
 * Store contract tests (docs/architecture.md, "Fakes earn their trust"): one suite of
 * assertions run against a store's in-memory fake and against its knex implementation on
 * real Postgres, so that a fake cannot quietly disagree with the store it stands for.
 * For tests only (vitest).
 */

/** A database of one test file: created and migrated before its tests, dropped after them. */
export interface ContractDatabase {
  /** The pool on the service's schema (only inside a test or a hook of the file). */
  readonly db: Knex;
}

/**
 * A fresh database on the server of TEST_DATABASE_URL (set by `npm test`), migrated with
 * `migrations` in `schema`, for the whole test file that calls this (one per file, not per test:
 * tests keep apart by making their own organizations and keys).
 */
export function useContractDatabase(schema: string, migrations: Migration[]): ContractDatabase {
  let knex: Knex | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    const server = process.env.TEST_DATABASE_URL;
    if (!server) throw new Error('store contract tests need Postgres: run them with `npm test`, or set TEST_DATABASE_URL');
    const u = new URL(server);
    u.pathname = `/contract_${schema}_${randomBytes(6).toString('hex')}`;
    url = u.toString();
    await ensureDatabase(url);
    knex = createDb(url, { schema, poolMax: 4, application: `${schema}-contract` });
    await migrate(knex, schema, migrations);
  });
  afterAll(async () => {
    await knex?.destroy();
    if (url) await dropDatabase(url);
  });
  return {
    get db() {
      if (!knex) throw new Error('the contract database is made in beforeAll: use it inside a test or a hook');
      return knex;
    },
  };
}

/**
 * Empties every table of `schema` (its migrations' bookkeeping kept): for a contract whose cases
 * read whole tables (a work queue's claims), called where its Postgres world is made.
 */
export async function truncateSchema(db: Knex, schema: string): Promise<void> {
  const tables = await db.raw<pg.QueryResult<{ name: string }>>(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
      WHERE schemaname = ? AND tablename NOT LIKE 'knex\\_migrations%'`,
    [schema],
  );
  if (tables.rows.length) await db.raw(`TRUNCATE ${tables.rows.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE`);
}

async function dropDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  target.pathname = '/postgres';
  const client = new pg.Client(pgConnectionConfig(target.toString()));
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** One assertion of a contract: it gets a fresh world (the store under test and how to seed what it reads). */
export type ContractCase<W> = (world: W) => Promise<void>;

/** A rule only Postgres honours (a unique index, a lock, ranking): why the fake cannot, and its test. */
export interface PostgresOnlyCase<W> {
  reason: string;
  test: ContractCase<W>;
}

/**
 * Runs the same `cases` against the fake and against Postgres, as two describe blocks
 * `<name> (fake)` and `<name> (postgres)`. `fake()` makes a new world per test; `postgres(db)`
 * a world over the file's database. `postgresOnly` names the rules the fake does not honour,
 * each with its reason: they run against Postgres only, titled "postgres only: <name> (<reason>)",
 * so that the list is explicit rather than a silent skip.
 */
export function describeStoreContract<W>(
  name: string,
  spec: {
    database: ContractDatabase;
    fake: () => W | Promise<W>;
    postgres: (db: Knex) => W | Promise<W>;
    cases: Record<string, ContractCase<W>>;
    postgresOnly?: Record<string, PostgresOnlyCase<W>>;
  },
): void {
  describe(`${name} (fake)`, () => {
    for (const [title, test] of Object.entries(spec.cases)) it(title, async () => test(await spec.fake()));
  });
  describe(`${name} (postgres)`, () => {
    for (const [title, test] of Object.entries(spec.cases)) it(title, async () => test(await spec.postgres(spec.database.db)));
    for (const [title, only] of Object.entries(spec.postgresOnly ?? {}))
      it(`postgres only: ${title} (${only.reason})`, async () => only.test(await spec.postgres(spec.database.db)));
  });
}
