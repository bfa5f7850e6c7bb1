import { createHash } from 'node:crypto';
import {
  ConfigError,
  readDatabaseConfig,
  readDbTimeouts,
  int,
  readProcessConfig,
  readServiceConfig,
  sealingKeys,
  serviceUrls,
  str,
} from '@cluster/platform';

/** Development key material, used only outside production when EVIDENCE_SECRET_KEY is unset (refused in production). */
export const DEV_EVIDENCE_KEY_MATERIAL = 'dev-only-evidence-key: set EVIDENCE_SECRET_KEY in production';

/**
 * The development platform signing seed: derived from a public constant, so anyone can sign with
 * it. Used only outside production when EVIDENCE_SIGNING_KEY is unset; refused in production.
 */
export const DEV_EVIDENCE_SIGNING_SEED = createHash('sha256').update('cluster development evidence signing key').digest();

/**
 * EVIDENCE_SIGNING_KEY: the platform's Ed25519 seeds (32 bytes in base64), `NEW,OLD` while
 * rotating: the first signs packages, every one stays published so that packages signed before
 * still verify (docs/evidence.md). The same rules as the sealing keys (sealingKeys: required in
 * production, the signing key 32 random bytes), plus: every entry decodes to 32 bytes, and the
 * development seed is refused in production. Unset outside production: the development seed.
 */
export function evidenceSigningSeeds(production: boolean): Buffer[] {
  const keys = sealingKeys('EVIDENCE_SIGNING_KEY', production);
  if (!keys) return [DEV_EVIDENCE_SIGNING_SEED];
  const seeds = keys.map((key, i) => {
    const seed = Buffer.from(key, 'base64');
    if (seed.length !== 32) throw new ConfigError(`key ${i + 1} of EVIDENCE_SIGNING_KEY is not 32 bytes in base64`);
    return seed;
  });
  if (production && seeds.some((seed) => seed.equals(DEV_EVIDENCE_SIGNING_SEED)))
    throw new ConfigError('EVIDENCE_SIGNING_KEY lists the public development key: generate one (openssl rand -base64 32)');
  return seeds;
}

/** Evidence configuration, read once at boot. */
export function readEvidenceConfig() {
  const common = readProcessConfig();
  return {
    ...common,
    ...readServiceConfig('evidence', common.production),
    port: int('EVIDENCE_PORT', 50053, 0, 65535),
    /** DATABASE_URL (required: startEvidence checks; the test harness supplies its own), DATABASE_SSL_ROOT_CERT, DATABASE_CREATE. */
    ...readDatabaseConfig(),
    /** Bounds on every wait on Postgres (DB_STATEMENT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS). */
    db: readDbTimeouts(),
    /** Where the core answers (release facts). */
    coreUrl: serviceUrls().core,
    /** Keyring sealing organizations' evidence keys at rest (first seals, all open); undefined means the dev default. */
    secretKeys: sealingKeys('EVIDENCE_SECRET_KEY', common.production),
    /** The platform's evidence signing seeds (EVIDENCE_SIGNING_KEY): the first signs, all are published. */
    signingSeeds: evidenceSigningSeeds(common.production),
    /** Whether signingSeeds is the development seed (a warning at start). */
    devSigningKey: str('EVIDENCE_SIGNING_KEY', '') === '',
  };
}
export type EvidenceConfig = ReturnType<typeof readEvidenceConfig>;
