import { int, readProcessConfig, readServiceConfig, str } from '@cluster/platform';

/** Evidence configuration, read once at boot. */
export function readEvidenceConfig() {
  const common = readProcessConfig('evidence');
  return {
    ...common,
    ...readServiceConfig('evidence', common.production),
    port: int('EVIDENCE_PORT', 50053, 0, 65535),
    /** Required; checked by startEvidence (callers such as the test harness may supply it after reading the rest). */
    databaseUrl: str('DATABASE_URL', ''),
  };
}
export type EvidenceConfig = ReturnType<typeof readEvidenceConfig>;
