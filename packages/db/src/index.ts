import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

export type { Knex };

// Return bigint counts as numbers and timestamps as Date (converted by presenters).
pg.types.setTypeParser(20, (v) => Number(v));

/** libpq's sslmode values node-postgres can honour (no `prefer`/`allow`: it cannot fall back to plaintext). */
const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;

/** URL parameters libpq reads for TLS, which pgConnectionConfig turns into node-postgres' `ssl`. */
const TLS_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey'];

/**
 * What node-postgres needs for a connection to `url`, with libpq's meaning of its TLS parameters
 * (node-postgres' own reading differs: its `require` verifies the certificate as `verify-full`
 * does, and its `verify-ca` too unless the URL also says `uselibpqcompat=true`):
 * - sslmode `disable` (or none): plaintext;
 * - `require`: encrypted, the certificate unchecked, unless `sslrootcert` names a CA (then as verify-ca);
 * - `verify-ca`: the certificate must chain to `sslrootcert` (or Node's trusted CAs), any host name;
 * - `verify-full`: that, and the certificate must name the host connected to.
 * `sslcert`/`sslkey`: a client certificate. Every connection of every process goes through this
 * (the pools, the leader and LISTEN connections, the maintenance connection of ensureDatabase).
 */
export function pgConnectionConfig(url: string): { connectionString: string; ssl: false | ConnectionOptions } {
  const parsed = new URL(url);
  const param = (name: string) => parsed.searchParams.get(name) ?? undefined;
  const mode = param('sslmode') ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(mode))
    throw new Error(`DATABASE_URL: sslmode=${mode} is not supported; use one of ${SSL_MODES.join(', ')}`);
  const other = [...parsed.searchParams.keys()].find(
    (k) => (k.startsWith('ssl') || k === 'uselibpqcompat') && !TLS_PARAMS.includes(k),
  );
  if (other) throw new Error(`DATABASE_URL: parameter ${other} is not supported; TLS is set with sslmode and sslrootcert`);
  const file = (name: string) => {
    const path = param(name);
    return path === undefined ? undefined : readFileSync(path, 'utf8');
  };
  const ca = file('sslrootcert');
  const client = { cert: file('sslcert'), key: file('sslkey') };
  for (const name of TLS_PARAMS) parsed.searchParams.delete(name);
  const connectionString = parsed.toString();
  if (mode === 'disable') return { connectionString, ssl: false };
  if (mode === 'require' && !ca) return { connectionString, ssl: { ...client, rejectUnauthorized: false } };
  const anyHost = mode !== 'verify-full' ? { checkServerIdentity: () => undefined } : {};
  return { connectionString, ssl: { ...client, ca, rejectUnauthorized: true, ...anyHost } };
}

/** Node's codes of a server certificate that did not verify. */
const CERTIFICATE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * A start's first connection failed: a TLS failure says which setting to look at (a bare
 * "self-signed certificate in certificate chain" does not); anything else is passed on as it is.
 */
function explainConnectError(err: unknown, url: string): unknown {
  const e = err as { code?: string; message?: string };
  const at = `Postgres at ${new URL(url).host}`;
  if (e.code && CERTIFICATE_CODES.has(e.code))
    return new Error(
      `${at}: its TLS certificate did not verify (${e.code}: ${e.message}); check DATABASE_SSL_ROOT_CERT (the CA that signed the server's certificate) and DATABASE_URL's sslmode`,
      { cause: err },
    );
  if (e.message === 'The server does not support SSL connections')
    return new Error(`${at} does not accept TLS, and DATABASE_URL's sslmode asks for it`, { cause: err });
  return err;
}

/** The part of a pino logger knex's own messages go to. */
export interface DbLogSink {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

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

/** One statement on a connection of knex's pool (named: prepared once per connection). */
async function runOnPool<T>(
  client: Knex.Client,
  statement: { name?: string; text: string },
  values: readonly unknown[],
): Promise<T[]> {
  const pool = client as unknown as PoolClient;
  const connection = await pool.acquireConnection();
  try {
    return (await connection.query<T & pg.QueryResultRow>({ ...statement, values: [...values] })).rows;
  } finally {
    await pool.releaseConnection(connection);
  }
}

/**
 * Bounds on a pool's waits (readDbTimeouts in @cluster/platform): a statement runs at most
 * `statementTimeoutMs` (server-side statement_timeout; the client gives up a second later, which is
 * what ends a wait on a frozen server, and closes that connection); taking a connection from the
 * pool, or opening one, at most `acquireTimeoutMs`.
 */
export interface DbTimeouts {
  statementTimeoutMs: number;
  acquireTimeoutMs: number;
}

/** The part of a pool's node-postgres client that closeOnReadTimeout wraps. */
interface PooledClient {
  query: (...args: unknown[]) => unknown;
  end(): Promise<void>;
}

/**
 * After a client-side query timeout the statement may still be running (or the server frozen): the
 * connection is closed, which knex sees ('end') and drops from the pool, instead of handing a
 * connection with a hung statement to the next caller.
 */
function closeOnReadTimeout(client: PooledClient): void {
  const query = client.query.bind(client);
  const close = (err: unknown) => {
    if (err instanceof Error && err.message === 'Query read timeout') void client.end().catch(() => {});
  };
  client.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (err: unknown, res: unknown) => {
        close(err);
        (callback as (e: unknown, r: unknown) => void)(err, res);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) result.catch(close);
    return result;
  };
}

/** A knex pool on one schema of the database; `timeouts` bound every wait on it (none: migrations, CLIs). */
export function createDb(
  url: string,
  opts: { schema: string; poolMax?: number; application?: string; logger?: DbLogSink; timeouts?: DbTimeouts },
): Knex {
  const sink = opts.logger;
  const t = opts.timeouts;
  return knexFactory({
    log: sink
      ? {
          warn: (m: unknown) => sink.warn({ knex: String(m) }, 'knex warning'),
          error: (m: unknown) => sink.warn({ knex: String(m) }, 'knex error'),
          deprecate: (m: unknown) => sink.debug({ knex: String(m) }, 'knex deprecation'),
          debug: (m: unknown) => sink.debug({ knex: String(m) }, 'knex debug'),
        }
      : undefined,
    client: 'pg',
    connection: {
      ...pgConnectionConfig(url),
      application_name: opts.application ?? opts.schema,
      ...(t && {
        statement_timeout: t.statementTimeoutMs,
        query_timeout: t.statementTimeoutMs + 1000,
        connectionTimeoutMillis: t.acquireTimeoutMs,
        keepAlive: true,
      }),
    },
    searchPath: [opts.schema, 'public'],
    pool: {
      min: 0,
      max: opts.poolMax ?? 10,
      ...(t && {
        afterCreate: (client: PooledClient, done: (err: Error | null, c: unknown) => void) => {
          closeOnReadTimeout(client);
          done(null, client);
        },
      }),
    },
    acquireConnectionTimeout: t?.acquireTimeoutMs ?? 10000,
  });
}

/**
 * Creates the database named in `url` if it does not exist yet, through the maintenance database
 * `postgres` of the same server (with the same credentials and TLS). Only when asked
 * (DATABASE_CREATE): a managed server's application role may neither connect there nor create.
 */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, '')) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client(pgConnectionConfig(admin.toString()));
  await client.connect().catch((err: unknown) => {
    throw explainConnectError(err, url);
  });
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04' && err.code !== '23505') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}

export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

/**
 * Runs a service's migrations in its own schema, once, under a Postgres
 * advisory lock so that replicas starting together do not race.
 */
export async function migrate(knex: Knex, schema: string, migrations: Migration[]): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`migrate:${schema}`]);
    await trx.raw(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  });
  await knex.migrate.latest({
    schemaName: schema,
    tableName: 'knex_migrations',
    migrationSource: {
      getMigrations: async () => migrations,
      getMigrationName: (m: Migration) => m.name,
      getMigration: async (m: Migration) => ({ up: m.up, down: m.down ?? (async () => {}) }),
    },
  });
}

/**
 * Refuses to start on a schema that lacks migrations this build needs (MIGRATE_ON_START=false:
 * the migration Job runs them; docs/deploy.md). A pod started before the Job finished exits
 * with this message and is restarted, rather than serving against an old schema.
 */
export async function assertMigrated(knex: Knex, schema: string, migrations: Migration[]): Promise<void> {
  const table = await knex.raw<{ rows: { present: boolean }[] }>('SELECT to_regclass(?) IS NOT NULL AS present', [
    `"${schema}".knex_migrations`,
  ]);
  const done = table.rows[0]?.present
    ? new Set((await knex.withSchema(schema).select('name').from('knex_migrations')).map((r: { name: string }) => r.name))
    : new Set<string>();
  const missing = migrations.map((m) => m.name).filter((name) => !done.has(name));
  if (missing.length > 0)
    throw new Error(
      `schema "${schema}" lacks migrations ${missing.join(', ')}: run the migration job (MIGRATE_ON_START=false), docs/deploy.md`,
    );
}

/**
 * Migrates at start, or (MIGRATE_ON_START=false, a migration Job does it) checks that it was done: on a
 * connection of its own, without the serving pool's timeouts (a migration may take longer than a request).
 */
export async function prepareSchema(
  url: string,
  schema: string,
  migrations: Migration[],
  migrateOnStart: boolean,
): Promise<void> {
  const db = createDb(url, { schema, application: `${schema}-migrate`, poolMax: 1 });
  try {
    // The start's first connection: a TLS failure here is a misconfiguration, said in plain words.
    await db.raw('SELECT 1').catch((err: unknown) => {
      throw explainConnectError(err, url);
    });
    if (migrateOnStart) await migrate(db, schema, migrations);
    else await assertMigrated(db, schema, migrations);
  } finally {
    await db.destroy();
  }
}

/** True when the database answers. */
export async function pingDb(knex: Knex): Promise<boolean> {
  try {
    await knex.raw('SELECT 1');
    return true;
  } catch {
    return false;
  }
}

/** Page arithmetic shared by every list. */
export function pageOffset(page: number, pageSize: number): number {
  return (page - 1) * pageSize;
}

/** Names of the list statements paginate has prepared, by their SQL text. */
const listStatementNames = new Map<string, string>();

/** A select of every column (`*`, `t.*`): its result would change with a migration, so it is never prepared. */
const SELECTS_ALL = /^select (?:[\w".]*\.)?\*|, (?:[\w".]*\.)?\* /;

/**
 * Runs a list's statement on the pool without knex's runner, compiled once. A count, or a select
 * that names its columns, runs as a named prepared statement, named after its SQL text (another
 * filter is another text, so another statement): Postgres plans it once per connection instead of
 * on every call (the rules of `prepared`). A select of `*` runs unnamed. A query of a transaction
 * goes through knex, on the transaction's connection.
 */
async function runListStatement<T>(query: Knex.QueryBuilder): Promise<T[]> {
  const client = query.client as Knex.Client & { transacting?: boolean };
  if (client.transacting) return (await query) as T[];
  const { sql, bindings } = query.toSQL().toNative();
  if (SELECTS_ALL.test(sql)) return runOnPool<T>(client, { text: sql }, bindings);
  let name = listStatementNames.get(sql);
  if (!name) {
    if (listStatementNames.size >= 10_000) listStatementNames.clear();
    name = `list-${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    listStatementNames.set(sql, name);
  }
  return runOnPool<T>(client, { name, text: sql }, bindings);
}

/**
 * Runs a list query in the order of docs/decisions-api.md (createdAt desc, id desc) and
 * returns one page of its rows with the true total: from the page itself when it is the
 * list's last, else from a count (the select of `query` cleared). Both statements are
 * prepared (`runListStatement`), the page only when the query names its columns. For stores only.
 */
export async function paginate<T = Record<string, unknown>>(
  query: Knex.QueryBuilder,
  { page, pageSize }: { page: number; pageSize: number },
): Promise<{ data: T[]; page: number; pageSize: number; total: number }> {
  const offset = pageOffset(page, pageSize);
  // One row more than the page: when it does not come, this page is the list's last, and its total is
  // known without counting (every list that fits in a page, and the last page of any list).
  const rows = await runListStatement<T>(
    query
      .clone()
      .orderBy([
        { column: 'createdAt', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(pageSize + 1)
      .offset(offset),
  );
  if (rows.length <= pageSize && (rows.length > 0 || offset === 0)) {
    return { data: rows, page, pageSize, total: offset + rows.length };
  }
  const [{ count }] = await runListStatement<{ count: string }>(query.clone().clearSelect().clearOrder().count({ count: '*' }));
  return { data: rows.slice(0, pageSize), page, pageSize, total: Number(count) };
}

/**
 * The in-memory twin of `paginate`, for the fake stores of unit tests: one page of rows
 * already filtered, in the same order (createdAt desc, id desc), with the true total, as
 * copies (a database read is: later writes must not change it). A row without a Date
 * createdAt sorts as the oldest; the fakes' inserts set one, as the column's default does.
 */
export function fakePage<T extends { id: string }>(
  rows: readonly T[],
  { page, pageSize }: { page: number; pageSize: number },
): { data: T[]; page: number; pageSize: number; total: number } {
  const sorted = [...rows].sort((a, b) => createdTime(b) - createdTime(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const offset = pageOffset(page, pageSize);
  return { data: sorted.slice(offset, offset + pageSize).map((r) => ({ ...r })), page, pageSize, total: rows.length };
}

function createdTime(row: object): number {
  return 'createdAt' in row && row.createdAt instanceof Date ? row.createdAt.getTime() : 0;
}

/** True for a string shaped like a UUID (ids in paths that are not UUIDs are 404, never a database error). */
export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);
}

/** Stringifies the jsonb columns of a row about to be written with knex (knex would send an array as a Postgres array). */
export function jsonbValues(values: Record<string, unknown>, jsonColumns: readonly string[]): Record<string, unknown> {
  const out = { ...values };
  for (const c of jsonColumns) if (out[c] !== null && out[c] !== undefined) out[c] = JSON.stringify(out[c]);
  return out;
}

/**
 * The migration Job's work for one service (`node services/<name>/dist/migrate.js`):
 * the database at `url` and the service's schema brought to this build's migrations,
 * under the same advisory lock as a start-up migration. Prints one JSON line.
 */
export async function runMigrations(
  schema: string,
  migrations: Migration[],
  database: { databaseUrl: string; createDatabase: boolean },
): Promise<void> {
  const url = database.databaseUrl;
  if (database.createDatabase) await ensureDatabase(url);
  const db = createDb(url, { schema, application: `${schema}-migrate`, poolMax: 1 });
  try {
    await db.raw('SELECT 1').catch((err: unknown) => {
      throw explainConnectError(err, url);
    });
    await migrate(db, schema, migrations);
    await assertMigrated(db, schema, migrations);
    process.stdout.write(
      `${JSON.stringify({ level: 'info', service: schema, migrations: migrations.length, msg: 'schema migrated' })}\n`,
    );
  } finally {
    await db.destroy();
  }
}
