import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * Query options that make a statement a named prepared statement: node-postgres
 * prepares it once per connection and Postgres keeps its plan. For hot statements
 * whose planning costs as much as their execution (measured with pg_stat_statements).
 * Rules: the SQL text behind one name never varies (lists travel as arrays, not IN
 * lists), columns are named (never `*`, so a migration cannot change a cached plan's
 * result), and the version in the name changes whenever the SQL does. A pooler in
 * front of Postgres must keep prepared statements (docs/runbook.md).
 * Use: `query.options(prepared('core-authenticate-v1'))`.
 */
export function prepared(name: string): { name: string } {
  return { name };
}

/** A named statement for runPrepared: its SQL text never varies; change the name's version when it does. */
export interface PreparedStatement {
  name: string;
  text: string;
}

/** The pool side of knex's client, which knex's typings do not expose. */
interface PoolClient {
  acquireConnection(): Promise<pg.ClientBase>;
  releaseConnection(connection: pg.ClientBase): Promise<unknown>;
}

/**
 * Runs a named prepared statement on a connection of knex's pool (its search_path set),
 * without knex's query builder and runner: for the few statements every request runs,
 * where their per-call cost shows in a profile (bench/README.md). The rules of
 * `prepared` apply. Everything else goes through knex.
 */
export function runPrepared<T>(db: Knex, statement: PreparedStatement, values: unknown[]): Promise<T[]> {
  return runOnPool<T>(db.client, statement, values);
}

/**
 * One statement on a connection of knex's pool (named: prepared once per connection). Within the package (pagination).
 * `client`: a knex instance's `client` (typed `any` by knex's typings) or a query's.
 */
export async function runOnPool<T>(
  client: unknown,
  statement: { name?: string; text: string },
  values: readonly unknown[],
): Promise<T[]> {
  const pool = client as PoolClient;
  const connection = await pool.acquireConnection();
  try {
    return (await connection.query<T & pg.QueryResultRow>({ ...statement, values: [...values] })).rows;
  } finally {
    await pool.releaseConnection(connection);
  }
}
