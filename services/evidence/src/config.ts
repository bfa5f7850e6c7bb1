import { readDbTimeouts, int, readProcessConfig, readServiceConfig, sealingKeys, serviceUrls, str } from '@cluster/platform';

/** Development key material, used only outside production when EVIDENCE_SECRET_KEY is unset (refused in production). */
export const DEV_EVIDENCE_KEY_MATERIAL = 'dev-only-evidence-key: set EVIDENCE_SECRET_KEY in production';

/** Evidence configuration, read once at boot. */
export function readEvidenceConfig() {
  const common = readProcessConfig();
  return {
    ...common,
    ...readServiceConfig('evidence', common.production),
    port: int('EVIDENCE_PORT', 50053, 0, 65535),
    /** Required; checked by startEvidence (callers such as the test harness may supply it after reading the rest). */
    databaseUrl: str('DATABASE_URL', ''),
    /** Bounds on every wait on Postgres (DB_STATEMENT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS). */
    db: readDbTimeouts(),
    /** Where the core answers (release facts). */
    coreUrl: serviceUrls().core,
    /** Keyring sealing organizations' evidence keys at rest (first seals, all open); undefined means the dev default. */
    secretKeys: sealingKeys('EVIDENCE_SECRET_KEY', common.production),
  };
}
export type EvidenceConfig = ReturnType<typeof readEvidenceConfig>;
