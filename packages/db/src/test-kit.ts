// For tests only (`@cluster/db/test-kit`): a store contract run against its fake and against Postgres.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import pg from 'pg';
import { createDb, ensureDatabase, migrate, pgConnectionConfig, type Knex, type Migration } from './index.ts';

/**
 * One implementation of a store interface under contract. `world` makes a fresh, empty world for
 * each case (`W`: the stores under test and what a case needs to arrange rows), `setup` and
 * `teardown` run once around the implementation's cases (a database, a pool).
 */
export interface ContractTarget<W> {
  kind: 'fake' | 'postgres';
  setup?(): Promise<void>;
  world(): Promise<W>;
  teardown?(): Promise<void>;
}

/** A store contract: its cases, each run against every target on a fresh world. */
export interface StoreContract<W> {
  /** The interface under contract, e.g. 'DeliveryQueueStore'. */
  store: string;
  targets: ContractTarget<W>[];
  /** Case name -> the case: arranges through the world, acts on the store, asserts. */
  cases: Record<string, (world: W) => Promise<void>>;
  /**
   * Cases of rules the real store enforces and the fake cannot honour, with the reason. Against a
   * fake each of them runs as an expected failure (`it.fails`): said, never skipped, and the day
   * the fake honours one, its case fails until it is taken off this list.
   */
  postgresOnly?: Record<string, string>;
}

/** Runs a store contract: a `describe` per target, an `it` per case (see StoreContract). */
export function describeStoreContract<W>(contract: StoreContract<W>): void {
  const postgresOnly = contract.postgresOnly ?? {};
  for (const name of Object.keys(postgresOnly)) {
    if (!(name in contract.cases)) throw new Error(`${contract.store} contract: postgresOnly names no case "${name}"`);
  }
  for (const target of contract.targets) {
    describe(`${contract.store} contract (${target.kind})`, () => {
      if (target.setup) beforeAll(() => target.setup?.());
      if (target.teardown) afterAll(() => target.teardown?.());
      for (const [name, run] of Object.entries(contract.cases)) {
        const reason = postgresOnly[name];
        if (target.kind === 'fake' && reason !== undefined) {
          it.fails(`${name} [the fake cannot: ${reason}]`, async () => run(await target.world()));
        } else {
          it(name, async () => run(await target.world()));
        }
      }
    });
  }
}

/** The test server's URL (TEST_DATABASE_URL, which `npm test` sets), or a failure that says how to get one. */
export function requireTestDatabaseUrl(url: string | undefined): string {
  if (!url) throw new Error('TEST_DATABASE_URL is unset: run the suite with `npm test` (it starts Postgres and sets it)');
  return url;
}

/**
 * A Postgres target: a database of its own on the test server (`serverUrl`, TEST_DATABASE_URL),
 * migrated once with the service's `migrations`, emptied before every case (every table of `schema`
 * but knex's own, sequences restarted), and dropped at the end. `world` builds the stores over the pool.
 */
export function postgresTarget<W>(opts: {
  serverUrl: string | undefined;
  schema: string;
  migrations: Migration[];
  world(db: Knex): W | Promise<W>;
}): ContractTarget<W> {
  let db: Knex | undefined;
  let url = '';
  return {
    kind: 'postgres',
    async setup() {
      const server = new URL(requireTestDatabaseUrl(opts.serverUrl));
      server.pathname = `/contract_${opts.schema}_${randomBytes(6).toString('hex')}`;
      url = server.toString();
      await ensureDatabase(url);
      db = createDb(url, { schema: opts.schema, poolMax: 4 });
      await migrate(db, opts.schema, opts.migrations);
    },
    async world() {
      if (!db) throw new Error('postgresTarget: setup did not run');
      const tables = await db.raw<pg.QueryResult<{ name: string }>>(
        `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
          WHERE schemaname = ? AND tablename NOT LIKE 'knex\\_migrations%'`,
        [opts.schema],
      );
      if (tables.rows.length) await db.raw(`TRUNCATE ${tables.rows.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE`);
      return opts.world(db);
    },
    async teardown() {
      await db?.destroy();
      if (url) await dropTestDatabase(url);
    },
  };
}

/** Drops a test database (its open connections ended), through the server's maintenance database. */
export async function dropTestDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = '/postgres';
  const client = new pg.Client(pgConnectionConfig(target.toString()));
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
