import type { Knex } from 'knex';
import { createDb, ensureDatabase, explainConnectError } from './connection.ts';
import { excessPrivileges, grantRuntimeRole } from './roles.ts';

export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

/** How a migration that waited too long for a lock is tried again (migrate's `retry`). */
export interface MigrationRetry {
  /** Tries in all (default 8). */
  attempts?: number;
  /** Wait before the second try (default 1 s), doubling up to `maxDelayMs` (default 15 s). */
  delayMs?: number;
  maxDelayMs?: number;
  /** Told of each failed try that will be retried (a log line). */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
}

/**
 * A migration gave up waiting for a lock: lock_timeout (55P03, "canceling statement due to lock
 * timeout"), also when knex re-throws it as its own LockError with the message alone.
 */
export function isLockTimeout(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return e?.code === '55P03' || /lock timeout/i.test(e?.message ?? '');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a service's migrations in its own schema, once, under a Postgres
 * advisory lock so that replicas starting together do not race. The connected role
 * owns the schema and what the migrations create; `runtimeRole` (DATABASE_RUNTIME_ROLE),
 * the role the service then connects as, is granted only the DML on it (grantRuntimeRole).
 *
 * On a connection with lock_timeout (createDb's `lockTimeoutMs`: prepareSchema, runMigrations), a
 * migration that waits too long for a lock (an ALTER TABLE behind a long transaction of a serving
 * pod, while every query on that table queues behind the ALTER) fails, its transaction rolls back,
 * and the whole run is tried again after a pause (`retry`), so a busy table delays a rollout instead
 * of stalling the service.
 */
export async function migrate(
  knex: Knex,
  schema: string,
  migrations: Migration[],
  opts: { runtimeRole?: string; retry?: MigrationRetry } = {},
): Promise<void> {
  const { attempts = 8, delayMs = 1_000, maxDelayMs = 15_000, onRetry } = opts.retry ?? {};
  let wait = delayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(knex, schema, migrations, opts.runtimeRole);
    } catch (err) {
      if (!isLockTimeout(err) || attempt >= attempts) throw err;
      onRetry?.(err, attempt, wait);
      await sleep(wait);
      wait = Math.min(wait * 2, maxDelayMs);
    }
  }
}

async function migrateOnce(knex: Knex, schema: string, migrations: Migration[], runtimeRole: string | undefined) {
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
  if (runtimeRole) await grantRuntimeRole(knex, schema, runtimeRole);
}

/** What prepareSchema and runMigrations take besides the schema: lock_timeout, and where retries are told. */
export interface MigrationRun {
  /** lock_timeout of the migration's connection (DB_MIGRATION_LOCK_TIMEOUT_MS); 0: wait for ever. */
  lockTimeoutMs?: number;
  onRetry?: MigrationRetry['onRetry'];
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
 * Checking, it also returns what the connected role may do beyond a service's DML (excessPrivileges:
 * empty when it is a runtime role of its own); migrating, nothing.
 */
export async function prepareSchema(
  url: string,
  schema: string,
  migrations: Migration[],
  migrateOnStart: boolean,
  run: MigrationRun = {},
): Promise<string[]> {
  const db = createDb(url, { schema, application: `${schema}-migrate`, poolMax: 1, lockTimeoutMs: run.lockTimeoutMs });
  try {
    // The start's first connection: a TLS failure here is a misconfiguration, said in plain words.
    await db.raw('SELECT 1').catch((err: unknown) => {
      throw explainConnectError(err, url);
    });
    if (migrateOnStart) {
      await migrate(db, schema, migrations, { retry: { onRetry: run.onRetry } });
      return [];
    }
    await assertMigrated(db, schema, migrations);
    return await excessPrivileges(db, schema);
  } finally {
    await db.destroy();
  }
}

/**
 * The migration Job's work for one service (`node services/<name>/dist/migrate.js`):
 * the database at `url` and the service's schema brought to this build's migrations,
 * under the same advisory lock as a start-up migration, as the owner role of DATABASE_URL;
 * then the service's own role (`runtimeRole`, DATABASE_RUNTIME_ROLE) granted its rights
 * there (docs/security.md, "Database roles"). Prints one JSON line.
 */
export async function runMigrations(
  schema: string,
  migrations: Migration[],
  database: { databaseUrl: string; createDatabase: boolean; runtimeRole?: string; migrationLockTimeoutMs?: number },
): Promise<void> {
  const url = database.databaseUrl;
  if (database.createDatabase) await ensureDatabase(url);
  const db = createDb(url, {
    schema,
    application: `${schema}-migrate`,
    poolMax: 1,
    lockTimeoutMs: database.migrationLockTimeoutMs,
  });
  const onRetry = (err: unknown, attempt: number, delayMs: number) =>
    process.stdout.write(
      `${JSON.stringify({ level: 'warn', service: schema, attempt, delayMs, err: (err as Error).message, msg: 'migration waited too long for a lock; retrying' })}\n`,
    );
  try {
    await db.raw('SELECT 1').catch((err: unknown) => {
      throw explainConnectError(err, url);
    });
    await migrate(db, schema, migrations, { runtimeRole: database.runtimeRole, retry: { onRetry } });
    await assertMigrated(db, schema, migrations);
    const role = database.runtimeRole ? { runtimeRole: database.runtimeRole } : {};
    process.stdout.write(
      `${JSON.stringify({ level: 'info', service: schema, migrations: migrations.length, ...role, msg: 'schema migrated' })}\n`,
    );
  } finally {
    await db.destroy();
  }
}
