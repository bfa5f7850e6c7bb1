// Checks `npm start` and `npm test` run before they start anything (docs/runbook.md, "Local
// operations"): what the local servers need (Java, Maven on a first run, free ports, a port already
// listening that speaks the protocol it is reused for) and, when given, that DATABASE_URL parses
// and connects. Each problem is one line that names the setting to change or the package to
// install; the caller prints them all and exits without starting a process.
import { spawnSync } from 'node:child_process';
import net from 'node:net';

/** The Java the local Kafka broker needs (README: "Java 17+"). */
export const JAVA_MAJOR = 17;

/** A failure whose message is the whole story: printed as one line, without a stack. */
export class StartError extends Error {
  name = 'StartError';
}

const INSTALL_JAVA = `install a JDK ${JAVA_MAJOR}+ (Debian/Ubuntu: apt-get install openjdk-${JAVA_MAJOR}-jre-headless; macOS: brew install openjdk@${JAVA_MAJOR})`;
const OR_BROKER = 'or set KAFKA_BROKERS to a running broker';

/** Why `java` on PATH cannot run the broker (missing, or older than JAVA_MAJOR); undefined when it can. */
export function javaProblem() {
  const res = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 30_000 });
  if (res.error?.code === 'ENOENT')
    return `Java not found on PATH: the local Kafka broker needs it: ${INSTALL_JAVA}, ${OR_BROKER}`;
  if (res.error || res.status !== 0)
    return `java -version failed (${res.error?.message ?? `exit ${res.status}`}): ${INSTALL_JAVA}, ${OR_BROKER}`;
  // `openjdk version "17.0.15" ...`, `java version "1.8.0_381"` (Java 8 and older: 1.<major>).
  const m = /version "(\d+)(?:\.(\d+))?/.exec(`${res.stderr}${res.stdout}`);
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : undefined;
  if (major === undefined) return undefined;
  if (major < JAVA_MAJOR)
    return `Java ${major} found on PATH, the local Kafka broker needs ${JAVA_MAJOR}+: ${INSTALL_JAVA}, ${OR_BROKER}`;
  return undefined;
}

/** Why Kafka's jars cannot be fetched (no `mvn` on PATH); only asked when they are not cached yet. */
export function mavenProblem(cacheDir) {
  const res = spawnSync('mvn', ['-v'], { encoding: 'utf8', timeout: 60_000 });
  if (res.error?.code !== 'ENOENT') return undefined;
  return `Maven (mvn) not found on PATH: it fetches Kafka's jars once into ${cacheDir} (Debian/Ubuntu: apt-get install maven; macOS: brew install maven), ${OR_BROKER}`;
}

/** Whether `port` can be listened on at `host` (false: another process has it). */
export function portFree(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** Why `port` (from `setting`) cannot be listened on; undefined when it is free. */
export async function portProblem(port, setting, what, host = '127.0.0.1') {
  if (await portFree(port, host)) return undefined;
  return `port ${port} (${what}) is taken by another process: stop it, or set ${setting} to a free port`;
}

/** A setting that must be a TCP port; `fallback` when unset. */
export function portSetting(env, name, fallback) {
  const raw = env[name] ?? String(fallback);
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) throw new StartError(`${name}=${raw} is not a TCP port (1-65535)`);
  return port;
}

/** `host:port/database` of a URL, without its credentials (for messages). */
export const where = (url) => `${url.hostname}:${url.port || 5432}${url.pathname}`;

/**
 * Connects to `url` once as `pg` would (a 5 s bound): undefined when it does, else the error.
 * `allowMissingDatabase`: a database that does not exist yet counts as reachable (DATABASE_CREATE makes it).
 */
async function tryPostgres(url, { allowMissingDatabase = false, timeoutMs = 5000 } = {}) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {}); // a server that drops the connection later: reported by connect()
  try {
    await client.connect();
    return undefined;
  } catch (err) {
    if (allowMissingDatabase && err.code === '3D000') return undefined;
    return err;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Why DATABASE_URL cannot be used: not a postgres:// URL, or no connection (refused, unknown host,
 * a wrong password, ...). A database that does not exist is fine when `create` (DATABASE_CREATE).
 */
export async function databaseUrlProblem(raw, { create }) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    return 'DATABASE_URL is not a URL: set it to postgres://USER:PASSWORD@HOST:5432/DATABASE, or unset it to use the local PostgreSQL';
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    return `DATABASE_URL must be a postgres:// URL, not ${url.protocol}//...: set it to postgres://USER:PASSWORD@HOST:5432/DATABASE, or unset it to use the local PostgreSQL`;
  const err = await tryPostgres(raw, { allowMissingDatabase: create });
  if (!err) return undefined;
  const at = where(url);
  const reason =
    err.code === 'ECONNREFUSED'
      ? 'nothing accepts connections there'
      : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
        ? `host ${url.hostname} not found`
        : err.code === '28P01' || err.code === '28000'
          ? `the server refused the login (${err.message})`
          : err.code === '3D000'
            ? `${err.message} (DATABASE_CREATE=false)`
            : /timeout/i.test(err.message)
              ? 'no answer within 5 s'
              : err.message.split('\n')[0];
  return `DATABASE_URL (${at}) does not connect: ${reason}: correct DATABASE_URL, or unset it to use the local PostgreSQL`;
}

/**
 * Why the server on the local Postgres port cannot be reused: it is not PostgreSQL (a plain TCP
 * listener, another protocol) or it refuses the local login. undefined: a PostgreSQL to reuse.
 */
export async function localPostgresProblem(url, port) {
  const err = await tryPostgres(url, { timeoutMs: 3000 });
  if (!err) return undefined;
  // A SQLSTATE (five characters) is an answer in the Postgres protocol: a server, not ours.
  if (typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code))
    return `port ${port} is a PostgreSQL server that refuses the local login (${err.message}): stop it, or set LOCAL_PG_PORT to a free port (or DATABASE_URL to use that server)`;
  return `port ${port} is taken by a process that is not PostgreSQL (${err.message.split('\n')[0]}): stop it, or set LOCAL_PG_PORT to a free port`;
}

/** Why the listener on the local Kafka port cannot be reused as a broker; undefined: a broker. */
export async function localKafkaProblem(brokers, port) {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({
    brokers: [brokers],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    requestTimeout: 3000,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    await admin.describeCluster();
    return undefined;
  } catch (err) {
    return `port ${port} is taken by a process that does not answer as a Kafka broker (${err.message.split('\n')[0]}): stop it, or set LOCAL_KAFKA_PORT to a free port`;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
