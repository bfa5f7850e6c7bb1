import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// Return bigint counts as numbers and timestamps as Date (converted by presenters).
pg.types.setTypeParser(20, (v) => Number(v));

/** libpq's sslmode values node-postgres can honour (no `prefer`/`allow`: it cannot fall back to plaintext). */
const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;

/** URL parameters libpq reads for TLS, which pgConnectionConfig turns into node-postgres' `ssl`. */
const TLS_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey'];

/**
 * What node-postgres needs for a connection to `url`, with libpq's meaning of its TLS parameters
 * (node-postgres' own reading differs: its `require` verifies the certificate as `verify-full`
 * does, and its `verify-ca` too unless the URL also says `uselibpqcompat=true`):
 * - sslmode `disable` (or none): plaintext;
 * - `require`: encrypted, the certificate unchecked, unless `sslrootcert` names a CA (then as verify-ca);
 * - `verify-ca`: the certificate must chain to `sslrootcert` (or Node's trusted CAs), any host name;
 * - `verify-full`: that, and the certificate must name the host connected to.
 * `sslcert`/`sslkey`: a client certificate. Every connection of every process goes through this
 * (the pools, the leader and LISTEN connections, the maintenance connection of ensureDatabase).
 */
export function pgConnectionConfig(url: string): { connectionString: string; ssl: false | ConnectionOptions } {
  const parsed = new URL(url);
  const param = (name: string) => parsed.searchParams.get(name) ?? undefined;
  const mode = param('sslmode') ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(mode))
    throw new Error(`DATABASE_URL: sslmode=${mode} is not supported; use one of ${SSL_MODES.join(', ')}`);
  const other = [...parsed.searchParams.keys()].find(
    (k) => (k.startsWith('ssl') || k === 'uselibpqcompat') && !TLS_PARAMS.includes(k),
  );
  if (other) throw new Error(`DATABASE_URL: parameter ${other} is not supported; TLS is set with sslmode and sslrootcert`);
  const file = (name: string) => {
    const path = param(name);
    return path === undefined ? undefined : readFileSync(path, 'utf8');
  };
  const ca = file('sslrootcert');
  const client = { cert: file('sslcert'), key: file('sslkey') };
  for (const name of TLS_PARAMS) parsed.searchParams.delete(name);
  const connectionString = parsed.toString();
  if (mode === 'disable') return { connectionString, ssl: false };
  if (mode === 'require' && !ca) return { connectionString, ssl: { ...client, rejectUnauthorized: false } };
  const anyHost = mode !== 'verify-full' ? { checkServerIdentity: () => undefined } : {};
  return { connectionString, ssl: { ...client, ca, rejectUnauthorized: true, ...anyHost } };
}

/** Node's codes of a server certificate that did not verify. */
const CERTIFICATE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * A start's first connection failed: a TLS failure says which setting to look at (a bare
 * "self-signed certificate in certificate chain" does not); anything else is passed on as it is.
 */
export function explainConnectError(err: unknown, url: string): unknown {
  const e = err as { code?: string; message?: string };
  const at = `Postgres at ${new URL(url).host}`;
  if (e.code && CERTIFICATE_CODES.has(e.code))
    return new Error(
      `${at}: its TLS certificate did not verify (${e.code}: ${e.message}); check DATABASE_SSL_ROOT_CERT (the CA that signed the server's certificate) and DATABASE_URL's sslmode`,
      { cause: err },
    );
  if (e.message === 'The server does not support SSL connections')
    return new Error(`${at} does not accept TLS, and DATABASE_URL's sslmode asks for it`, { cause: err });
  return err;
}

/** The part of a pino logger knex's own messages go to. */
export interface DbLogSink {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/**
 * Bounds on a pool's waits (readDbTimeouts in @cluster/platform): a statement runs at most
 * `statementTimeoutMs` (server-side statement_timeout; the client gives up a second later, which is
 * what ends a wait on a frozen server, and closes that connection); taking a connection from the
 * pool, or opening one, at most `acquireTimeoutMs`.
 */
export interface DbTimeouts {
  statementTimeoutMs: number;
  acquireTimeoutMs: number;
}

/** The part of a pool's node-postgres client that closeOnReadTimeout wraps. */
interface PooledClient {
  query: (...args: unknown[]) => unknown;
  end(): Promise<void>;
}

/**
 * After a client-side query timeout the statement may still be running (or the server frozen): the
 * connection is closed, which knex sees ('end') and drops from the pool, instead of handing a
 * connection with a hung statement to the next caller.
 */
function closeOnReadTimeout(client: PooledClient): void {
  const query = client.query.bind(client);
  const close = (err: unknown) => {
    if (err instanceof Error && err.message === 'Query read timeout') void client.end().catch(() => {});
  };
  client.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (err: unknown, res: unknown) => {
        close(err);
        (callback as (e: unknown, r: unknown) => void)(err, res);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) result.catch(close);
    return result;
  };
}

/** A knex pool on one schema of the database; `timeouts` bound every wait on it (none: migrations, CLIs). */
export function createDb(
  url: string,
  opts: { schema: string; poolMax?: number; application?: string; logger?: DbLogSink; timeouts?: DbTimeouts },
): Knex {
  const sink = opts.logger;
  const t = opts.timeouts;
  return knexFactory({
    log: sink
      ? {
          warn: (m: unknown) => sink.warn({ knex: String(m) }, 'knex warning'),
          error: (m: unknown) => sink.warn({ knex: String(m) }, 'knex error'),
          deprecate: (m: unknown) => sink.debug({ knex: String(m) }, 'knex deprecation'),
          debug: (m: unknown) => sink.debug({ knex: String(m) }, 'knex debug'),
        }
      : undefined,
    client: 'pg',
    connection: {
      ...pgConnectionConfig(url),
      application_name: opts.application ?? opts.schema,
      ...(t && {
        statement_timeout: t.statementTimeoutMs,
        query_timeout: t.statementTimeoutMs + 1000,
        connectionTimeoutMillis: t.acquireTimeoutMs,
        keepAlive: true,
      }),
    },
    searchPath: [opts.schema, 'public'],
    pool: {
      min: 0,
      max: opts.poolMax ?? 10,
      ...(t && {
        afterCreate: (client: PooledClient, done: (err: Error | null, c: unknown) => void) => {
          closeOnReadTimeout(client);
          done(null, client);
        },
      }),
    },
    acquireConnectionTimeout: t?.acquireTimeoutMs ?? 10000,
  });
}

/**
 * Creates the database named in `url` if it does not exist yet, through the maintenance database
 * `postgres` of the same server (with the same credentials and TLS). Only when asked
 * (DATABASE_CREATE): a managed server's application role may neither connect there nor create.
 */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, '')) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client(pgConnectionConfig(admin.toString()));
  await client.connect().catch((err: unknown) => {
    throw explainConnectError(err, url);
  });
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04' && err.code !== '23505') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}

/** True when the database answers. */
export async function pingDb(knex: Knex): Promise<boolean> {
  try {
    await knex.raw('SELECT 1');
    return true;
  } catch {
    return false;
  }
}
