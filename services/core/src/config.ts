import { int, str } from '@cluster/platform';
import { parseBrokers } from '@cluster/kafka';

/** Core configuration, read once at boot (contract.md names). */
export function readCoreConfig() {
  return {
    port: int('CORE_PORT', 50051, 0, 65535),
    databaseUrl: str('DATABASE_URL'),
    kafkaBrokers: parseBrokers(process.env.KAFKA_BROKERS),
    relayIdleMs: int('OUTBOX_RELAY_IDLE_MS', 1000, 10),
  };
}
export type CoreConfig = ReturnType<typeof readCoreConfig>;
