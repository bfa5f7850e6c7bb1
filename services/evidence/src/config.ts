import { int, str } from '@cluster/platform';

/** Evidence configuration, read once at boot. */
export function readEvidenceConfig() {
  return {
    port: int('EVIDENCE_PORT', 50053, 0, 65535),
    databaseUrl: str('DATABASE_URL'),
  };
}
export type EvidenceConfig = ReturnType<typeof readEvidenceConfig>;
