import { readFileSync } from 'node:fs';
import {
  SERVICE_NAMES,
  devServiceKeys,
  publicKeyFromRaw,
  signingKeyFromSeed,
  type ServiceKeys,
  type ServiceName,
} from './service-auth.ts';
import { isDevelopmentKey } from './development-keys.ts';

// The one place that reads the environment, with each service's `src/config.ts`
// (which calls these helpers): values are read once at boot, typed, and a bad value
// fails the start. Packages never read `process.env`; they are handed what they need.
// The one exception: the OTEL_* variables, which the OpenTelemetry SDK reads itself as
// its specification says (instrumentation.ts decides only whether to start it).

/** A missing or malformed setting: the process refuses to start. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A required string, or its fallback. */
export function str(name: string, fallback?: string): string {
  const v = process.env[name];
  if (v !== undefined && v !== '') return v;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(`${name} is required`);
}

/** A string that may be unset (empty counts as unset). */
export function optionalStr(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** An integer in min..max, or its fallback. */
/** A number (decimals allowed) in min..max, or `fallback` when unset. */
export function num(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new ConfigError(`${name} must be a number in ${min}..${max}, got ${raw}`);
  return n;
}

export function int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer in ${min}..${max}, got ${raw}`);
  return n;
}

/** true/1 or false/0, or its fallback. */
export function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got ${raw}`);
}

/** One of a fixed set of words (a log level, a mode). */
export function oneOf<const T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${raw}`);
  return raw as T;
}

/** A comma-separated list, blanks dropped. */
export function list(name: string, fallback: string): string[] {
  return str(name, fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Words of a placeholder (the shipped manifest says CHANGE_ME): six letters or more, so
 * a random key contains one by chance less than once in ten million.
 */
const PLACEHOLDER = /change|replace|placeholder|example/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Why one sealing key is unfit for production, or undefined when it is fit: it must be
 * 32 random bytes in base64 (`openssl rand -base64 32`), so a placeholder, a short or
 * malformed value, a value of one repeated byte and a passphrase (bytes that are all
 * printable text) are refused. Never quotes the value.
 */
export function sealingKeyProblem(value: string): string | undefined {
  if (PLACEHOLDER.test(value)) return 'is a placeholder';
  if (!BASE64.test(value)) return 'is not base64';
  const bytes = Buffer.from(value, 'base64');
  const unpadded = (b64: string) => b64.replace(/=+$/, '');
  if (unpadded(bytes.toString('base64')) !== unpadded(value)) return 'is not canonical base64';
  if (bytes.length !== 32) return `decodes to ${bytes.length} bytes, not 32`;
  if (bytes.every((b) => b === bytes[0])) return 'is one byte repeated, not random';
  if (bytes.every((b) => b >= 0x20 && b <= 0x7e)) return 'decodes to text (a passphrase), not random bytes';
  return undefined;
}

/**
 * A sealing keyring: one key, or a comma-separated list during a rotation (the first
 * seals, all open; docs/runbook.md). Unset is undefined (the caller's development key)
 * in development and refused anywhere else, where the first (sealing) key must pass
 * sealingKeyProblem and no entry may be a development key (isDevelopmentKey: a value
 * anyone can read in this repository seals nothing). The other entries only open what
 * they once sealed, so they are otherwise taken as they are (see retiredKeyWarnings).
 * An empty entry or a key listed twice is refused everywhere.
 */
export function sealingKeys(name: string, development: boolean): string[] | undefined {
  const how = '32 random bytes in base64: openssl rand -base64 32';
  const raw = optionalStr(name);
  if (raw === undefined) {
    if (!development) throw new ConfigError(`${name} is required unless ${DEVELOPMENT_SWITCH} (${how})`);
    return undefined;
  }
  const keys = raw.split(',').map((k) => k.trim());
  if (keys.includes('')) throw new ConfigError(`${name} has an empty entry in its comma-separated list`);
  if (new Set(keys).size !== keys.length) throw new ConfigError(`${name} lists the same key twice`);
  if (development) return keys;
  if (keys.some(isDevelopmentKey)) throw developmentKeyError(name);
  const problem = sealingKeyProblem(keys[0]);
  if (problem) {
    const which = keys.length > 1 ? `the first (sealing) key of ${name}` : name;
    throw new ConfigError(`${which} ${problem}; outside development it must be ${how}`);
  }
  return keys;
}

/** A development key given outside development (by fingerprint, in whatever role). */
function developmentKeyError(name: string): ConfigError {
  return new ConfigError(
    `${name} holds a public development key, refused unless ${DEVELOPMENT_SWITCH}: generate one (openssl rand -base64 32; node scripts/service-keys.mjs)`,
  );
}

/**
 * One warning per retired key of a keyring that would not do as a sealing key: it is
 * accepted (values sealed under it must keep opening, even under a key from before
 * these checks) until a re-seal lets it go. For a production start's log.
 */
export function retiredKeyWarnings(name: string, keys: readonly string[]): string[] {
  return keys.flatMap((key, i) => {
    const problem = i === 0 ? undefined : sealingKeyProblem(key);
    return problem ? [`key ${i + 1} of ${keys.length} of ${name} ${problem}: re-seal and remove it (docs/runbook.md)`] : [];
  });
}

/** Base URLs of the backend services, as the gateway and CLI see them. */
export function serviceUrls() {
  return {
    core: str('CORE_URL', `http://127.0.0.1:${int('CORE_PORT', 50051)}`),
    delivery: str('DELIVERY_URL', `http://127.0.0.1:${int('DELIVERY_PORT', 50052)}`),
    evidence: str('EVIDENCE_URL', `http://127.0.0.1:${int('EVIDENCE_PORT', 50053)}`),
  };
}

/**
 * How long a service waits on Postgres before it answers 503 `unavailable` (docs/runbook.md,
 * "When a dependency fails"): a statement's run (statement_timeout on the server, and the same
 * bound plus a second on the client, which is what ends a wait on a frozen server), and taking a
 * connection from the pool or opening one. For the services' serving pools; migrations run without.
 */
export function readDbTimeouts() {
  return {
    statementTimeoutMs: int('DB_STATEMENT_TIMEOUT_MS', 5_000, 100),
    acquireTimeoutMs: int('DB_ACQUIRE_TIMEOUT_MS', 3_000, 100),
  };
}

/**
 * Where the Postgres database is, and whether this process may create it. DATABASE_URL carries
 * libpq's `sslmode` (disable, the default; require; verify-ca; verify-full: @cluster/db's
 * pgConnectionConfig); DATABASE_SSL_ROOT_CERT names the CA file that verifies the server, handed
 * on as the URL's `sslrootcert` so that every connection of the process sees it. DATABASE_CREATE:
 * create the database when missing, through the maintenance database `postgres` (`npm start`, the
 * tests); off, nothing connects there (a managed server whose application role may not).
 * Outside development a plaintext URL (sslmode disable or unset, to a host over TCP) is refused
 * unless DATABASE_ALLOW_PLAINTEXT=true says the network is trusted (plaintextRefusal).
 * DB_MIGRATION_LOCK_TIMEOUT_MS: a migration's statement waits at most this long for a lock, then the
 * migration is rolled back and tried again (@cluster/db's migrate).
 */
export function readDatabaseConfig(development: boolean = readDevelopment()) {
  const databaseUrl = withRootCert(str('DATABASE_URL', ''), optionalStr('DATABASE_SSL_ROOT_CERT'));
  if (!development && !bool('DATABASE_ALLOW_PLAINTEXT', false)) {
    const problem = plaintextRefusal(databaseUrl);
    if (problem) throw new ConfigError(problem);
  }
  return {
    /** '' when unset: the composition roots refuse to start without it (the test harness supplies its own). */
    databaseUrl,
    createDatabase: bool('DATABASE_CREATE', false),
    migrationLockTimeoutMs: int('DB_MIGRATION_LOCK_TIMEOUT_MS', 2_000, 0),
  };
}

/**
 * Why `url` would send passwords and data in the clear, or undefined: sslmode `disable` or unset to a
 * host over TCP. A Unix socket (`?host=/run/postgresql`) never leaves the machine and passes.
 */
export function plaintextRefusal(url: string): string | undefined {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // pgConnectionConfig names a malformed URL
  }
  const mode = parsed.searchParams.get('sslmode') ?? 'disable';
  if (mode !== 'disable' || parsed.searchParams.get('host')?.startsWith('/')) return undefined;
  return (
    `DATABASE_URL connects to Postgres without TLS (sslmode=${parsed.searchParams.get('sslmode') ?? 'disable, the default when unset'}), refused unless ${DEVELOPMENT_SWITCH}: ` +
    'add sslmode=verify-full (and DATABASE_SSL_ROOT_CERT for a private CA), or set DATABASE_ALLOW_PLAINTEXT=true ' +
    'for a network you trust (a PgBouncer sidecar on localhost; docs/deploy.md, "Postgres over TLS")'
  );
}
export type DatabaseConfig = ReturnType<typeof readDatabaseConfig>;

/** A role name DATABASE_RUNTIME_ROLE may give: an unquoted Postgres identifier (grantRuntimeRole quotes it all the same). */
const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The migration Job's settings (services/<name>/src/migrate.ts): the database as readDatabaseConfig
 * reads it, DATABASE_URL being the owner role's (it owns the schemas and what the migrations make),
 * and DATABASE_RUNTIME_ROLE, the role the service itself connects as, which the Job grants the DML on
 * its schema and nothing else (docs/security.md, "Database roles"). Required unless CLUSTER_ENV=development
 * (where the one local superuser may do everything): a production Job that grants nobody would leave the
 * services either locked out or running as the owner.
 */
export function readMigrationConfig(development: boolean) {
  const runtimeRole = optionalStr('DATABASE_RUNTIME_ROLE');
  if (runtimeRole === undefined && !development)
    throw new ConfigError(
      'DATABASE_RUNTIME_ROLE is required: the role the service connects as, granted its rights by the migration (docs/deploy.md, "Database roles")',
    );
  if (runtimeRole !== undefined && !ROLE_NAME.test(runtimeRole))
    throw new ConfigError(
      `DATABASE_RUNTIME_ROLE: "${runtimeRole}" is not a role name this cluster uses (lower-case letters, digits and _, starting with a letter or _, at most 63)`,
    );
  return { ...readDatabaseConfig(development), runtimeRole };
}

function withRootCert(url: string, rootCert: string | undefined): string {
  if (rootCert === undefined) return url;
  if (!url) throw new ConfigError('DATABASE_SSL_ROOT_CERT is set but DATABASE_URL is not');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('DATABASE_URL is not a URL (postgres://user:password@host:port/database?sslmode=verify-full)');
  }
  const mode = parsed.searchParams.get('sslmode');
  if (mode !== 'verify-full' && mode !== 'verify-ca' && mode !== 'require')
    throw new ConfigError(
      `DATABASE_SSL_ROOT_CERT is set but DATABASE_URL's sslmode is ${mode ?? 'unset (disable)'}: add sslmode=verify-full`,
    );
  if (parsed.searchParams.has('sslrootcert'))
    throw new ConfigError('DATABASE_URL has sslrootcert and DATABASE_SSL_ROOT_CERT is set: name the CA in one of them');
  fileContents('DATABASE_SSL_ROOT_CERT');
  parsed.searchParams.set('sslrootcert', rootCert);
  return parsed.toString();
}

/** Levels a service logs at (pino's, and `silent`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The one setting that allows development defaults, as error messages name it. */
export const DEVELOPMENT_SWITCH = 'CLUSTER_ENV=development';

/**
 * Whether this process runs in development: CLUSTER_ENV=development, said explicitly (`npm start`,
 * the tests, the benches and `npm run admin` say it). Only then are development keys, private
 * webhook destinations, plain-http webhooks and a Host-derived public URL allowed. Unset or
 * `production` is the strict default, so a deployment that forgets a setting refuses to start
 * instead of running on keys anyone can mint. NODE_ENV decides nothing here (a library's
 * convention, easily mistyped); NODE_ENV=production with CLUSTER_ENV=development is refused as a
 * contradiction, so the image (which sets NODE_ENV=production) never runs in development.
 */
export function readDevelopment(): boolean {
  const development = oneOf('CLUSTER_ENV', ['development', 'production'], 'production') === 'development';
  if (development && optionalStr('NODE_ENV') === 'production')
    throw new ConfigError('CLUSTER_ENV=development contradicts NODE_ENV=production: unset one of them');
  return development;
}

/**
 * Settings every service process has (logs, shutdown, CLUSTER_ENV), read the same way by
 * each service's config and handed to createLogger and createShutdown by its
 * composition root. (Traces are configured by the standard OTEL_* variables, which the
 * OpenTelemetry SDK reads itself: instrumentation.ts.)
 */
export function readProcessConfig() {
  return {
    /** CLUSTER_ENV=development: development defaults allowed (readDevelopment); otherwise refused. */
    development: readDevelopment(),
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    /** Hard deadline of a graceful shutdown. */
    shutdownDeadlineMs: int('SHUTDOWN_DEADLINE_MS', 20_000, 0),
    /**
     * Services with a schema migrate it at start (true), or only check it is current (false:
     * Kubernetes runs the migration Job before the rollout; docs/deploy.md).
     */
    migrateOnStart: bool('MIGRATE_ON_START', true),
  };
}
export type ProcessConfig = ReturnType<typeof readProcessConfig>;

/** Kafka settings of a process that talks to the broker (the services, their CLIs, the tests' clients). */
export function readKafkaConfig() {
  return {
    kafkaBrokers: list('KAFKA_BROKERS', '127.0.0.1:9092'),
    /** Prefix of every topic name (and consumer group): isolates environments or test runs on one broker. */
    topicPrefix: str('KAFKA_TOPIC_PREFIX', ''),
    /** Level of the Kafka client's own log lines: `debug` shows them all, anything else its warnings. */
    kafkaClientLogLevel: optionalStr('KAFKAJS_LOG_LEVEL') === 'debug' ? ('debug' as const) : ('warn' as const),
    /**
     * How long a start waits for Kafka (its topics, the fan-out consumer's first join) before it
     * goes on without it and keeps trying in the background: services serve without the broker.
     */
    kafkaStartWaitMs: int('KAFKA_START_WAIT_MS', 15_000, 0),
    /** TLS and SASL of every connection to the brokers (createKafka in @cluster/kafka). */
    kafkaSecurity: readKafkaSecurity(),
    /**
     * The services create their topics and raise their message limit (true), or only check that
     * someone else did and refuse to start otherwise (false: managed Kafka whose application
     * credentials may not create topics or alter configs).
     */
    manageTopics: bool('KAFKA_MANAGE_TOPICS', true),
  };
}

/** SASL mechanisms the Kafka client speaks (KAFKA_SASL_MECHANISM). */
export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer'] as const;

/**
 * TLS and SASL of the Kafka connection, with every file a setting names already read (a missing
 * or unreadable one fails the start), except the OAuth token file, read again on each refresh.
 */
export interface KafkaSecurity {
  /** false: plaintext. Otherwise TLS, verified against `ca` (PEM) or Node's trusted CAs; `cert`/`key`: mutual TLS. */
  tls: false | { ca?: string; cert?: string; key?: string };
  sasl?:
    | { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string }
    | { mechanism: 'oauthbearer'; tokenFile?: string; tokenCommand?: string };
}

function readKafkaSecurity(): KafkaSecurity {
  return { tls: readKafkaTls(), sasl: readKafkaSasl() };
}

function readKafkaTls(): KafkaSecurity['tls'] {
  const files = ['KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE'] as const;
  if (!bool('KAFKA_SSL', false)) {
    const stray = files.find((name) => optionalStr(name) !== undefined);
    if (stray) throw new ConfigError(`${stray} is set but KAFKA_SSL is not true`);
    return false;
  }
  const [ca, cert, key] = files.map(fileContents);
  if ((cert === undefined) !== (key === undefined))
    throw new ConfigError('KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE go together (mutual TLS): set both or neither');
  return { ca, cert, key };
}

function readKafkaSasl(): KafkaSecurity['sasl'] {
  const raw = optionalStr('KAFKA_SASL_MECHANISM');
  const mechanism = raw === undefined ? undefined : oneOf('KAFKA_SASL_MECHANISM', KAFKA_SASL_MECHANISMS, 'plain');
  const given = (name: string) => optionalStr(name) !== undefined || optionalStr(`${name}_FILE`) !== undefined;
  const password = ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'].find(given);
  const token = ['KAFKA_SASL_OAUTHBEARER_TOKEN_FILE', 'KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND'].find((n) => optionalStr(n));
  if (mechanism === undefined) {
    const stray = password ?? token;
    if (stray) throw new ConfigError(`${stray} is set but KAFKA_SASL_MECHANISM is not`);
    return undefined;
  }
  if (mechanism === 'oauthbearer') {
    const tokenFile = optionalStr('KAFKA_SASL_OAUTHBEARER_TOKEN_FILE');
    const tokenCommand = optionalStr('KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND');
    if ((tokenFile === undefined) === (tokenCommand === undefined))
      throw new ConfigError(
        'KAFKA_SASL_MECHANISM=oauthbearer needs exactly one of KAFKA_SASL_OAUTHBEARER_TOKEN_FILE and KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND',
      );
    if (password) throw new ConfigError(`${password} is not used with KAFKA_SASL_MECHANISM=oauthbearer: unset it`);
    if (tokenFile !== undefined) fileContents('KAFKA_SASL_OAUTHBEARER_TOKEN_FILE'); // readable now, read again on each refresh
    return { mechanism, tokenFile, tokenCommand };
  }
  if (token) throw new ConfigError(`${token} is only used with KAFKA_SASL_MECHANISM=oauthbearer, not ${mechanism}`);
  const required = (name: string) => {
    const v = secret(name);
    if (v === undefined) throw new ConfigError(`KAFKA_SASL_MECHANISM=${mechanism} needs ${name} or ${name}_FILE`);
    return v;
  };
  return { mechanism, username: required('KAFKA_SASL_USERNAME'), password: required('KAFKA_SASL_PASSWORD') };
}

/**
 * A secret given as `NAME` or in the file `NAME_FILE` (a mounted Secret), read once at start and
 * trimmed (a file written by `echo` ends with a newline); both set is refused.
 */
export function secret(name: string): string | undefined {
  const direct = optionalStr(name);
  const file = optionalStr(`${name}_FILE`);
  if (direct !== undefined && file !== undefined) throw new ConfigError(`set ${name} or ${name}_FILE, not both`);
  if (file === undefined) return direct;
  const value = fileContents(`${name}_FILE`)!.trim();
  if (!value) throw new ConfigError(`${name}_FILE (${file}) is empty`);
  return value;
}

/** The contents of the file a setting names, undefined when unset; unreadable is a ConfigError naming the setting. */
function fileContents(name: string): string | undefined {
  const file = optionalStr(name);
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

export type KafkaConfig = ReturnType<typeof readKafkaConfig>;

/**
 * Where a service listens and the keys of its service tokens (docs/security.md).
 * LISTEN_HOST: 127.0.0.1 unless configured (Kubernetes sets 0.0.0.0).
 * SERVICE_SIGNING_KEY: this service's Ed25519 seed, 32 bytes in base64.
 * SERVICE_PUBLIC_KEYS: `name:<base64 public key>,...` of the services it accepts calls from
 * (one service may be listed twice while its key is rotated).
 * In development, unset keys fall back to the development keys (derived from public
 * constants); anywhere else both are required and no development key is accepted in either.
 */
export function readServiceConfig(self: ServiceName, development: boolean) {
  return { listenHost: str('LISTEN_HOST', '127.0.0.1'), serviceKeys: readServiceKeys(self, development) };
}
export type ServiceConfig = ReturnType<typeof readServiceConfig>;

function readServiceKeys(self: ServiceName, development: boolean): ServiceKeys {
  const seed = optionalStr('SERVICE_SIGNING_KEY');
  const listed = optionalStr('SERVICE_PUBLIC_KEYS');
  if (!development) {
    if (!seed || !listed)
      throw new ConfigError(`SERVICE_SIGNING_KEY and SERVICE_PUBLIC_KEYS are required unless ${DEVELOPMENT_SWITCH}`);
    if (isDevelopmentKey(seed)) throw developmentKeyError('SERVICE_SIGNING_KEY');
    if (listed.split(',').some((entry) => isDevelopmentKey(entry.split(':')[1]?.trim() ?? '')))
      throw developmentKeyError('SERVICE_PUBLIC_KEYS');
  }
  const dev = devServiceKeys(self);
  const signingKey = seed ? signingKeyFromSeed(key32('SERVICE_SIGNING_KEY', seed)) : dev.signingKey;
  const publicKeys = listed ? parsePublicKeys(listed) : dev.publicKeys;
  // A list given but holding no key (`,` or spaces) would refuse every call, or, read as "unset", take the
  // development keys: neither is meant (issue 37).
  if (publicKeys.length === 0)
    throw new ConfigError('SERVICE_PUBLIC_KEYS lists no key: name at least one <service>:<base64 key>');
  return { self, signingKey, publicKeys };
}

function parsePublicKeys(value: string): ServiceKeys['publicKeys'] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name, b64] = entry.split(':');
      if (!(SERVICE_NAMES as readonly string[]).includes(name) || !b64) {
        throw new ConfigError(`SERVICE_PUBLIC_KEYS: "${name}" is not of the form <service>:<base64 key> with a known service`);
      }
      return { service: name as ServiceName, key: publicKeyFromRaw(key32('SERVICE_PUBLIC_KEYS', b64)) };
    });
}

/** 32 bytes given in base64, or a ConfigError naming the setting. */
function key32(name: string, b64: string): Buffer {
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length !== 32) throw new ConfigError(`${name} must be 32 bytes in base64 (openssl rand -base64 32)`);
  return bytes;
}
