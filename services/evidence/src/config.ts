import { createPrivateKey } from 'node:crypto';
import {
  ConfigError,
  readDatabaseConfig,
  DEV_EVIDENCE_SIGNING_SEED,
  DEV_SEALING_KEYS,
  readDbTimeouts,
  int,
  optionalStr,
  readProcessConfig,
  readServiceConfig,
  sealingKeyProblem,
  sealingKeys,
  secret,
  serviceUrls,
  str,
} from '@cluster/platform';
import type { GithubAppConfig } from './features/attestation/github-app.ts';

/** Development key material, used only in development when EVIDENCE_SECRET_KEY is unset (refused elsewhere). */
export const DEV_EVIDENCE_KEY_MATERIAL = DEV_SEALING_KEYS.EVIDENCE_SECRET_KEY;

/**
 * The development platform signing seed (@cluster/platform's development keys): derived from a public
 * constant, so anyone can sign with it. Used only in development when EVIDENCE_SIGNING_KEY is unset.
 */
export { DEV_EVIDENCE_SIGNING_SEED };

/**
 * EVIDENCE_SIGNING_KEY: the platform's Ed25519 seeds (32 bytes in base64), `NEW,OLD` while
 * rotating: the first signs packages, every one stays published (as retired) so that packages
 * signed before still verify (docs/evidence.md). The rules of the sealing keys (sealingKeys: required
 * outside development, no development key of any role), and, unlike a sealing keyring's retired
 * entries, every entry is held to the signing key's: a retired seed stays published, and a weak one
 * would let anyone sign packages that verify. Outside development each is 32 random bytes in
 * canonical base64 (sealingKeyProblem: no placeholder, no text, not one byte repeated); in
 * development, 32 bytes and not one byte repeated. Unset in development: the development seed.
 */
export function evidenceSigningSeeds(development: boolean): Buffer[] {
  const keys = sealingKeys('EVIDENCE_SIGNING_KEY', development);
  if (!keys) return [DEV_EVIDENCE_SIGNING_SEED];
  const seeds = keys.map((key, i) => {
    const problem = development ? undefined : sealingKeyProblem(key);
    if (problem) throw new ConfigError(`key ${i + 1} of EVIDENCE_SIGNING_KEY ${problem}: it must be 32 random bytes in base64`);
    const seed = Buffer.from(key, 'base64');
    if (seed.length !== 32) throw new ConfigError(`key ${i + 1} of EVIDENCE_SIGNING_KEY is not 32 bytes in base64`);
    if (seed.every((b) => b === seed[0]))
      throw new ConfigError(`key ${i + 1} of EVIDENCE_SIGNING_KEY is one byte repeated: anyone could sign with it`);
    return seed;
  });
  return seeds;
}

/**
 * The platform's GitHub App (docs/evidence.md, "Platform verification with a GitHub App"): GITHUB_APP_ID
 * and GITHUB_APP_PRIVATE_KEY (or GITHUB_APP_PRIVATE_KEY_FILE; PEM), both or neither; GITHUB_API_URL
 * (default https://api.github.com; https outside development: it is operator config, trusted as such,
 * and not held to the webhook destinations' address guard, so a GitHub Enterprise Server on a private
 * network works); GITHUB_CHECK_TIMEOUT_MS, the deadline of a package's reads. Unset: no App, and every
 * code-hosting fact stays organization-attested.
 */
export function readGithubAppConfig(development: boolean): (GithubAppConfig & { checkTimeoutMs: number }) | undefined {
  const appId = optionalStr('GITHUB_APP_ID');
  const privateKey = secret('GITHUB_APP_PRIVATE_KEY')?.replace(/\\n/g, '\n');
  const apiUrl = str('GITHUB_API_URL', 'https://api.github.com');
  const checkTimeoutMs = int('GITHUB_CHECK_TIMEOUT_MS', 5000, 100, 60_000);
  if (appId === undefined && privateKey === undefined) return undefined;
  if (appId === undefined || privateKey === undefined)
    throw new ConfigError(
      "GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY go together (the platform's GitHub App): set both or neither",
    );
  if (!/^[1-9]\d{0,19}$/.test(appId)) throw new ConfigError(`GITHUB_APP_ID must be the App's numeric id, got ${appId}`);
  let type: string | undefined;
  try {
    type = createPrivateKey(privateKey).asymmetricKeyType;
  } catch {
    throw new ConfigError('GITHUB_APP_PRIVATE_KEY is not a PEM private key (the .pem file GitHub generates for the App)');
  }
  if (type !== 'rsa') throw new ConfigError(`GITHUB_APP_PRIVATE_KEY is a ${type} key: a GitHub App's key is RSA`);
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new ConfigError(`GITHUB_API_URL is not a URL: ${apiUrl}`);
  }
  if (url.protocol !== 'https:' && !(development && url.protocol === 'http:'))
    throw new ConfigError(`GITHUB_API_URL must be https (plain http only with CLUSTER_ENV=development), got ${apiUrl}`);
  return { appId, privateKey, apiUrl, checkTimeoutMs };
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
    /** The platform's GitHub App, which confirms code-hosting facts with GitHub; undefined: none (organization-attested). */
    githubApp: readGithubAppConfig(common.development),
  };
}
export type EvidenceConfig = ReturnType<typeof readEvidenceConfig>;
