import {
  readDatabaseConfig,
  DEV_SEALING_KEYS,
  readDbTimeouts,
  int,
  readKafkaConfig,
  readProcessConfig,
  readServiceConfig,
  sealingKeys,
} from '@cluster/platform';

/** Development key material, used only in development when CODEHOST_SECRET_KEY is unset (refused elsewhere). */
export const DEV_CODEHOST_KEY_MATERIAL = DEV_SEALING_KEYS.CODEHOST_SECRET_KEY;

/** Core configuration, read once at boot (the names of README, "Configuration"). */
export function readCoreConfig() {
  const common = readProcessConfig();
  return {
    ...common,
    ...readServiceConfig('core', common.development),
    ...readKafkaConfig(),
    port: int('CORE_PORT', 50051, 0, 65535),
    /** DATABASE_URL (required: startCore checks; the test harness supplies its own), DATABASE_SSL_ROOT_CERT, DATABASE_CREATE. */
    ...readDatabaseConfig(common.development),
    /** Bounds on every wait on Postgres (DB_STATEMENT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS). */
    db: readDbTimeouts(),
    /** The serving pool's size (DB_POOL_MAX): a share of the server's connection budget (docs/deploy.md, "Connection budget"). */
    dbPoolMax: int('DB_POOL_MAX', 10, 1, 1000),
    relayIdleMs: int('OUTBOX_RELAY_IDLE_MS', 1000, 10),
    /** Shortest time between two relay batches that are not full: rows committed meanwhile share one produce request. */
    relayLingerMs: int('OUTBOX_RELAY_LINGER_MS', 0, 0, 1000),
    /** Slots of the core's outbox, each led by one relay (docs/decisions.md, "Transactional outbox"). */
    relaySlots: int('OUTBOX_RELAY_SLOTS', 1, 1, 1024),
    /** How long a relay's slot lease holds without renewal: a frozen relay's slots move after it. */
    relayLeaseMs: int('OUTBOX_RELAY_LEASE_MS', 10_000, 1000),
    /** Keyring sealing organizations' code-host webhook secrets at rest (first seals, all open); undefined: the dev default. */
    codehostSecretKeys: sealingKeys('CODEHOST_SECRET_KEY', common.development),
  };
}
export type CoreConfig = ReturnType<typeof readCoreConfig>;

/** The admin CLI's configuration: the core's database (unset is reported by the CLI, with a hint). */
export function readAdminConfig() {
  const { development, migrateOnStart } = readProcessConfig();
  return {
    ...readDatabaseConfig(development),
    /** MIGRATE_ON_START=false (a core pod): the CLI only checks the schema, as the core's role may not migrate it. */
    migrateOnStart,
    codehostSecretKeys: sealingKeys('CODEHOST_SECRET_KEY', development),
  };
}
