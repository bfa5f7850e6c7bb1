import { DEVELOPMENT_SWITCH, readDevelopment } from './process.ts';
import { bool, ConfigError, fileContents, int, optionalStr, str } from './values.ts';

// Where Postgres is, how a service connects to it (TLS), how long it waits, and the migration Job's role.

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
