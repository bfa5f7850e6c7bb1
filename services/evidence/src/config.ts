import {
  ConfigError,
  readDatabaseConfig,
  DEV_EVIDENCE_SIGNING_SEED,
  DEV_SEALING_KEYS,
  readDbTimeouts,
  int,
  readProcessConfig,
  readServiceConfig,
  sealingKeys,
  serviceUrls,
  str,
} from '@cluster/platform';

/** Development key material, used only in development when EVIDENCE_SECRET_KEY is unset (refused elsewhere). */
export const DEV_EVIDENCE_KEY_MATERIAL = DEV_SEALING_KEYS.EVIDENCE_SECRET_KEY;

/**
 * The development platform signing seed (@cluster/platform's development keys): derived from a public
 * constant, so anyone can sign with it. Used only in development when EVIDENCE_SIGNING_KEY is unset.
 */
export { DEV_EVIDENCE_SIGNING_SEED };

/**
 * EVIDENCE_SIGNING_KEY: the platform's Ed25519 seeds (32 bytes in base64), `NEW,OLD` while
 * rotating: the first signs packages, every one stays published so that packages signed before
 * still verify (docs/evidence.md). The same rules as the sealing keys (sealingKeys: required
 * outside development, the signing key 32 random bytes, no development key of any role), plus:
 * every entry decodes to 32 bytes and is not one byte repeated: a retired seed stays published, and a
 * weak one would let anyone sign packages that verify (verify-evidence refuses those too). Unset in
 * development: the development seed.
 */
export function evidenceSigningSeeds(development: boolean): Buffer[] {
  const keys = sealingKeys('EVIDENCE_SIGNING_KEY', development);
  if (!keys) return [DEV_EVIDENCE_SIGNING_SEED];
  const seeds = keys.map((key, i) => {
    const seed = Buffer.from(key, 'base64');
    if (seed.length !== 32) throw new ConfigError(`key ${i + 1} of EVIDENCE_SIGNING_KEY is not 32 bytes in base64`);
    if (seed.every((b) => b === seed[0]))
      throw new ConfigError(`key ${i + 1} of EVIDENCE_SIGNING_KEY is one byte repeated: anyone could sign with it`);
    return seed;
  });
  return seeds;
}

/** Evidence configuration, read once at boot. */
export function readEvidenceConfig() {
  const common = readProcessConfig();
  return {
    ...common,
    ...readServiceConfig('evidence', common.development),
    port: int('EVIDENCE_PORT', 50053, 0, 65535),
    /** DATABASE_URL (required: startEvidence checks; the test harness supplies its own), DATABASE_SSL_ROOT_CERT, DATABASE_CREATE. */
    ...readDatabaseConfig(common.development),
    /** Bounds on every wait on Postgres (DB_STATEMENT_TIMEOUT_MS, DB_ACQUIRE_TIMEOUT_MS). */
    db: readDbTimeouts(),
    /** The serving pool's size (DB_POOL_MAX): a share of the server's connection budget (docs/deploy.md, "Connection budget"). */
    dbPoolMax: int('DB_POOL_MAX', 4, 1, 1000),
    /** Where the core answers (release facts). */
    coreUrl: serviceUrls().core,
    /** Keyring sealing organizations' evidence keys at rest (first seals, all open); undefined means the dev default. */
    secretKeys: sealingKeys('EVIDENCE_SECRET_KEY', common.development),
    /** The platform's evidence signing seeds (EVIDENCE_SIGNING_KEY): the first signs, all are published. */
    signingSeeds: evidenceSigningSeeds(common.development),
    /** Whether signingSeeds is the development seed (a warning at start). */
    devSigningKey: str('EVIDENCE_SIGNING_KEY', '') === '',
  };
}
export type EvidenceConfig = ReturnType<typeof readEvidenceConfig>;
