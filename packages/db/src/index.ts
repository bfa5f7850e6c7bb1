// @cluster/db: the services' Postgres access, a module per job; this file only re-exports. The
// in-memory twin of `paginate` for the fake stores is in test-kit.ts (`@cluster/db/test-kit`), out
// of the production entry.
export type { Knex } from 'knex';
export {
  clientConfig,
  connectClient,
  createDb,
  destroyClient,
  ensureDatabase,
  KEEPALIVE_IDLE_MS,
  pgConnectionConfig,
  pingDb,
  pingPool,
  poolState,
  sessionSettingsSql,
  type DbLogSink,
  type DbPoolObserver,
  type DbTimeouts,
  type SessionSettings,
} from './connection.ts';
export { prepared, runPrepared, type PreparedStatement } from './prepared.ts';
export {
  assertMigrated,
  isLockTimeout,
  migrate,
  prepareSchema,
  runMigrations,
  type Migration,
  type MigrationRetry,
  type MigrationRun,
} from './migrations.ts';
export { excessPrivileges, grantRuntimeRole } from './roles.ts';
export { pageOffset, paginate } from './pagination.ts';
export { isUuid, jsonbValues } from './values.ts';
export { afterCommit, ambientDb, inAmbientTransaction } from './ambient.ts';
export {
  createIdempotencyKeysTable,
  idempotencyKeys,
  type IdempotencyKeys,
  type KeyRecord,
  type KeyedCall,
  type Outcome,
} from './idempotency-keys.ts';
