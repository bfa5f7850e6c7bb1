import { int, readProcessConfig, str } from '@cluster/platform';

/** Evidence configuration, read once at boot. */
export function readEvidenceConfig() {
  return {
    ...readProcessConfig('evidence'),
    port: int('EVIDENCE_PORT', 50053, 0, 65535),
    /** Required; checked by startEvidence (callers such as the test harness may supply it after reading the rest). */
    databaseUrl: str('DATABASE_URL', ''),
  };
}
export type EvidenceConfig = ReturnType<typeof readEvidenceConfig>;
