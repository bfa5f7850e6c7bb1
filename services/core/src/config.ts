import { int, optionalStr, readKafkaConfig, readProcessConfig, readServiceConfig, str } from '@cluster/platform';

/** Core configuration, read once at boot (contract.md names). */
export function readCoreConfig() {
  const common = readProcessConfig('core');
  return {
    ...common,
    ...readServiceConfig('core', common.production),
    ...readKafkaConfig(),
    port: int('CORE_PORT', 50051, 0, 65535),
    /** Required; checked by startCore (callers such as the test harness may supply it after reading the rest). */
    databaseUrl: str('DATABASE_URL', ''),
    relayIdleMs: int('OUTBOX_RELAY_IDLE_MS', 1000, 10),
  };
}
export type CoreConfig = ReturnType<typeof readCoreConfig>;

/** The admin CLI's configuration: the core's database (unset is reported by the CLI, with a hint). */
export function readAdminConfig() {
  return { databaseUrl: optionalStr('DATABASE_URL') };
}
