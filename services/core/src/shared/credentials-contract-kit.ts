import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createDb, ensureDatabase, migrate, type Knex } from '@cluster/db';
import { migrations } from '../migrations/index.ts';

/**
 * The credentials' store contract harness (features/credentials/store.contract.test.ts): one
 * list of cases run against the fakes and against the core's schema on real Postgres.
 * Its exports have the names and shapes of core-contracts' `@cluster/db/test-kit`
 * (useContractDatabase, describeStoreContract; here the server URL is passed in, as only
 * test files read the environment), so that once both are merged the test imports that
 * instead and this file goes. For tests only.
 */

/** The database of one test file, made in its beforeAll (read `db` inside tests and hooks only). */
export interface ContractDatabase {
  readonly db: Knex;
}

/** A case: assertions over one world (the stores under test, fake or real, and how to seed them). */
export type ContractCase<W> = (world: W) => Promise<void>;

/** A rule the fake does not honour, with the reason: run against Postgres only, under a title that says so. */
export interface PostgresOnlyCase<W> {
  reason: string;
  test: ContractCase<W>;
}

/**
 * A database of its own for the calling test file, on the server of `server` (the test passes
 * TEST_DATABASE_URL, which `npm test` sets), with the core's migrations; dropped after the file's tests.
 */
export function useContractDatabase(server: string | undefined, schema = 'core'): ContractDatabase {
  const name = `credentials_${randomBytes(5).toString('hex')}`;
  let pool: Knex | undefined;
  const urlOf = (database: string) => {
    if (!server) throw new Error('the Postgres half of a store contract needs TEST_DATABASE_URL (`npm test` sets it)');
    const url = new URL(server);
    url.pathname = `/${database}`;
    return url.toString();
  };
  beforeAll(async () => {
    await ensureDatabase(urlOf(name));
    pool = createDb(urlOf(name), { schema, application: 'credentials-contract', poolMax: 3 });
    await migrate(pool, schema, migrations);
  });
  afterAll(async () => {
    await pool?.destroy();
    if (!pool) return;
    const maintenance = createDb(urlOf('postgres'), { schema: 'public', application: 'credentials-contract', poolMax: 1 });
    try {
      await maintenance.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await maintenance.destroy();
    }
  });
  return {
    get db(): Knex {
      if (!pool) throw new Error('the contract database exists from beforeAll on');
      return pool;
    },
  };
}

/** `name (fake)` and `name (postgres)`: every case against both, then the postgres-only cases, each titled with its reason. */
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
  const runAll = (world: () => W | Promise<W>, cases: [string, ContractCase<W>][]) => {
    for (const [title, test] of cases) it(title, async () => test(await world()));
  };
  describe(`${name} (fake)`, () => runAll(spec.fake, Object.entries(spec.cases)));
  describe(`${name} (postgres)`, () => {
    const onPostgres = () => spec.postgres(spec.database.db);
    runAll(onPostgres, Object.entries(spec.cases));
    const only = Object.entries(spec.postgresOnly ?? {});
    runAll(
      onPostgres,
      only.map(([title, c]) => [`postgres only: ${title} (${c.reason})`, c.test]),
    );
  });
}
