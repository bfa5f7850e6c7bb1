import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { CERTIFICATE_CODES } from './certificate-codes.ts';

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

/** The part of a node-postgres client the helpers below use. */
interface PooledClient {
  query: (...args: unknown[]) => unknown;
  end(): Promise<void>;
}

/**
 * TCP keepalive on every connection: the kernel probes an idle socket after this long, so a peer that
 * vanished (a failover that leaves a half-open socket, a NAT that forgot it) ends the connection
 * instead of leaving it open for the kernel's two hours. A frozen server still answers the probes
 * (its kernel does): what bounds a wait on it is the client-side query timeout.
 */
export const KEEPALIVE_IDLE_MS = 10_000;

/**
 * Session settings a connection gets with `SET` once it is open, never as startup parameters:
 * PgBouncer refuses a startup parameter it does not track (`unsupported startup parameter:
 * statement_timeout`) unless its operator lists it in `ignore_startup_parameters`, so the services
 * work behind a PgBouncer with its default configuration (docs/deploy.md, "PgBouncer").
 */
export interface SessionSettings {
  /** statement_timeout: a statement runs at most this long on the server. */
  statementTimeoutMs?: number;
  /** lock_timeout: a statement waits at most this long for a lock (the migrations: docs/runbook.md). */
  lockTimeoutMs?: number;
}

/** The one `SET ...; SET ...` string of `settings` (empty: nothing to set). */
export function sessionSettingsSql(settings: SessionSettings): string {
  const ms = (n: number) => String(Math.max(0, Math.floor(n)));
  const parts: string[] = [];
  if (settings.statementTimeoutMs !== undefined) parts.push(`SET statement_timeout = ${ms(settings.statementTimeoutMs)}`);
  if (settings.lockTimeoutMs !== undefined) parts.push(`SET lock_timeout = ${ms(settings.lockTimeoutMs)}`);
  return parts.join('; ');
}

/**
 * Closes a connection: Terminate is sent if the socket takes it, and after `graceMs` (0: at once) the
 * socket is destroyed rather than left half-closed, so a peer that will never answer (a frozen server,
 * a half-open socket) cannot hold `end()` open for the kernel's retransmission time. node-postgres
 * and knex see 'end'.
 */
export async function destroyClient(client: PooledClient, graceMs = 0): Promise<void> {
  const ended = client.end().catch(() => {});
  if (graceMs > 0) {
    let timer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      ended.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (inTime) return;
  }
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  await ended;
}

/** What watchQueries keeps per pool: when its server last answered, and its open connections. */
interface PoolWatch {
  at: number;
  connections: Set<PooledClient>;
}

/** Each pool's PoolWatch (watchQueries), for pingPool. */
const lastAnswer = new WeakMap<object, PoolWatch>();

/**
 * Watches every query of a pooled connection (knex's, runPrepared's, a transaction's):
 * - an answer from the server (rows, or an SQL error: it answered) is noted in `answered`, so that
 *   readiness can tell a busy pool from a dead server without a connection of its own (pingPool);
 * - after a client-side query timeout the statement may still be running (or the server frozen, or
 *   the socket half-open): the connection is destroyed, which knex sees ('end') and drops from the
 *   pool, instead of handing a connection with a hung statement to the next caller. The pool's other
 *   connections are likely dead too (a failover leaves them all half-open): each is marked disposed,
 *   so knex's check at its next acquire replaces it with a new one instead of letting a request wait
 *   out the timeout on it, one connection after another.
 */
function watchQueries(client: PooledClient, watch: PoolWatch): void {
  const query = client.query.bind(client);
  watch.connections.add(client);
  const events = client as unknown as { on(event: 'end' | 'error', f: () => void): void };
  events.on('end', () => watch.connections.delete(client));
  // A connection that broke (the server terminated it, a socket reset) says more than earlier answers:
  // readiness asks the server again (pingPool) rather than trusting them.
  events.on('error', () => (watch.at = 0));
  const settle = (err: unknown) => {
    if (!err || (err as { severity?: string }).severity) watch.at = Date.now();
    else if (err instanceof Error && err.message === 'Query read timeout') {
      watch.at = 0;
      for (const c of watch.connections)
        (c as unknown as { __knex__disposed?: string }).__knex__disposed ??= 'another connection of the pool timed out';
      void destroyClient(client);
    }
  };
  client.query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (err: unknown, res: unknown) => {
        settle(err);
        (callback as (e: unknown, r: unknown) => void)(err, res);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) result.then(() => settle(undefined), settle);
    // A submittable (pg-cursor, pg-query-stream) reports through its own events: left alone.
    return result;
  };
}

/** What clientConfig gives: a node-postgres ClientConfig that knex's connection setting takes too. */
export type ClientSettings = ReturnType<typeof pgConnectionConfig> & {
  application_name: string;
  keepAlive: boolean;
  keepAliveInitialDelayMillis: number;
  query_timeout?: number;
  connectionTimeoutMillis?: number;
};

/**
 * node-postgres' settings of a connection to `url` (TLS as pgConnectionConfig reads it) with keepalive,
 * and with `timeouts` the client-side bounds: opening it at most `acquireTimeoutMs`, a query's answer
 * at most `statementTimeoutMs` + 1 s (what ends a wait on a frozen server or a half-open socket).
 * The server-side statement_timeout is not here: connectClient sets it once connected.
 */
export function clientConfig(url: string, opts: { application: string; timeouts?: DbTimeouts }): ClientSettings {
  const t = opts.timeouts;
  return {
    ...pgConnectionConfig(url),
    application_name: opts.application,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    ...(t && { query_timeout: t.statementTimeoutMs + 1000, connectionTimeoutMillis: t.acquireTimeoutMs }),
  };
}

/**
 * Opens a dedicated connection made with clientConfig (an outbox relay's leader connection, the due
 * deliveries' LISTEN connection) and sets its statement_timeout with SET, as the pools do; a failure
 * destroys it and throws. Its owner still ends it on a query error ('Query read timeout' included).
 */
export async function connectClient(client: pg.Client, timeouts?: DbTimeouts): Promise<void> {
  try {
    await client.connect();
    const sql = sessionSettingsSql({ statementTimeoutMs: timeouts?.statementTimeoutMs });
    if (sql) await client.query(sql);
  } catch (err) {
    await destroyClient(client);
    throw err;
  }
}

/** Called by the pool for each new connection, with what it found; knex's tarn-style callback. */
type AfterCreate = (client: PooledClient, done: (err: Error | null, c: unknown) => void) => void;

/** The pool's hook on a new connection: the session settings by SET, then its queries watched (watchQueries). */
function afterCreate(settings: SessionSettings, watch: PoolWatch): AfterCreate {
  const sql = sessionSettingsSql(settings);
  return (client, done) => {
    const ready = (err: Error | null) => {
      if (!err) watchQueries(client, watch);
      done(err, client);
    };
    if (!sql) return ready(null);
    (client.query as (q: string, cb: (err: Error | null) => void) => void)(sql, ready);
  };
}

/** Pool events the serving pools report (acquire waits), for `<service>_db_pool_*` metrics. */
export interface DbPoolObserver {
  /** A connection was handed out (or not: `ok` false) after waiting `seconds` for it. */
  acquired(seconds: number, ok: boolean): void;
}

/**
 * A knex pool on one schema of the database. `timeouts` bound every wait on it (none: migrations,
 * CLIs); `lockTimeoutMs` bounds lock waits (the migrations). Every session setting is made with SET
 * after connecting (sessionSettingsSql), so the pool works through PgBouncer's default configuration.
 */
export function createDb(
  url: string,
  opts: {
    schema: string;
    poolMax?: number;
    application?: string;
    logger?: DbLogSink;
    timeouts?: DbTimeouts;
    lockTimeoutMs?: number;
    observer?: DbPoolObserver;
  },
): Knex {
  const sink = opts.logger;
  const t = opts.timeouts;
  const watch: PoolWatch = { at: 0, connections: new Set() };
  const hook = afterCreate({ statementTimeoutMs: t?.statementTimeoutMs, lockTimeoutMs: opts.lockTimeoutMs }, watch);
  const knex = knexFactory({
    log: sink
      ? {
          warn: (m: unknown) => sink.warn({ knex: String(m) }, 'knex warning'),
          error: (m: unknown) => sink.warn({ knex: String(m) }, 'knex error'),
          deprecate: (m: unknown) => sink.debug({ knex: String(m) }, 'knex deprecation'),
          debug: (m: unknown) => sink.debug({ knex: String(m) }, 'knex debug'),
        }
      : undefined,
    client: 'pg',
    connection: clientConfig(url, { application: opts.application ?? opts.schema, timeouts: t }),
    searchPath: [opts.schema, 'public'],
    pool: { min: 0, max: opts.poolMax ?? 10, afterCreate: hook },
    acquireConnectionTimeout: t?.acquireTimeoutMs ?? 10000,
  });
  lastAnswer.set(knex, watch);
  if (opts.observer) observePool(knex, opts.observer);
  return knex;
}

/** The tarn pool behind a knex instance, as far as observePool and poolState read it. */
interface TarnPool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  on(event: 'acquireRequest' | 'acquireSuccess' | 'acquireFail', listener: (eventId: number) => void): void;
}

function tarnPool(knex: Knex): TarnPool | undefined {
  return (knex.client as { pool?: TarnPool }).pool;
}

/** Times each acquire of the pool (tarn's acquireRequest to acquireSuccess or acquireFail; knex makes its pool at once). */
function observePool(knex: Knex, observer: DbPoolObserver): void {
  const pool = tarnPool(knex);
  if (!pool) return;
  const started = new Map<number, bigint>();
  const end = (id: number, ok: boolean) => {
    const t0 = started.get(id);
    if (t0 === undefined) return;
    started.delete(id);
    observer.acquired(Number(process.hrtime.bigint() - t0) / 1e9, ok);
  };
  pool.on('acquireRequest', (id) => started.set(id, process.hrtime.bigint()));
  pool.on('acquireSuccess', (id) => end(id, true));
  pool.on('acquireFail', (id) => end(id, false));
}

/** How a pool's connections are used now (no query: for a scrape and for readiness). */
export function poolState(knex: Knex): { max: number; used: number; free: number; pending: number } | undefined {
  const pool = tarnPool(knex);
  if (!pool) return undefined;
  return { max: pool.max, used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() };
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

/**
 * Readiness of a serving pool without a connection of its own: ready when the server answered one of
 * the pool's queries in the last `freshMs` and no connection of the pool broke or timed out since (a
 * pool busy with real work is a working one: a load peak that queues acquires must not make every
 * replica unready at once), else when `SELECT 1` through the pool answers. A server that goes away
 * breaks the connections (unready at the next probe); a frozen or unreachable one answers nothing,
 * so the replica goes unready at most `freshMs` after the last answer plus the probe's bound.
 */
export async function pingPool(knex: Knex, freshMs: number): Promise<boolean> {
  const at = lastAnswer.get(knex)?.at ?? 0;
  if (Date.now() - at < freshMs) return true;
  return pingDb(knex);
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
