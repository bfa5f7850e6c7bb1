import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { portOpen } from '../scripts/lib/infra.mjs';
import { freePort, startPorts } from './support/processes.ts';

// `npm start` when something it needs is missing or in the way (docs/runbook.md, "Local
// operations"): it says what to install or which setting to change, on one line, exits non-zero,
// and leaves no process behind (no Postgres, no broker, nothing listening on the ports it was given).
const ROOT = path.resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'preflight-'));
// Readable by the postgres user the local server runs as when the suite runs as root.
chmodSync(scratch, 0o755);
const servers: net.Server[] = [];
const sockets: net.Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  rmSync(scratch, { recursive: true, force: true });
});

/** A directory for PATH: every program of `dirs` but `without` (a machine without Java, or Maven). */
function pathWithout(without: string[]): string {
  const bin = mkdtempSync(path.join(scratch, 'bin-'));
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (without.includes(name)) continue;
      try {
        symlinkSync(path.join(dir, name), path.join(bin, name));
      } catch {
        /* an earlier PATH entry has it */
      }
    }
  }
  return bin;
}

/** A Kafka jar cache (LOCAL_CACHE_DIR) that holds the broker's jars, as after a first run, or nothing. */
function jarCache(cached: boolean): string {
  const dir = mkdtempSync(path.join(scratch, 'cache-'));
  if (cached) {
    mkdirSync(path.join(dir, 'kafka-3.9.1', 'libs'), { recursive: true });
    writeFileSync(path.join(dir, 'kafka-3.9.1', 'libs', 'kafka_2.13-3.9.1.jar'), '');
  }
  return dir;
}

/** A TCP listener that accepts connections and never answers (something that is not Postgres). */
async function plainListener(): Promise<number> {
  const port = await freePort();
  const server = net.createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
  return port;
}

/** Processes whose command line names `dir` (the local servers name their data directory). */
function processesUsing(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(dir) && !l.includes('ps -eo'));
}

interface Start {
  code: number | null;
  /** The [start] / [infra] lines that say what is wrong (not the progress lines). */
  problems: string[];
  output: string;
}

/**
 * `npm start` (scripts/start.mjs on the declared runtime) with its own data dir and ports, and
 * none of the suite's DATABASE_URL / KAFKA_BROKERS unless `env` gives them; until it exits.
 * Afterwards nothing of it may run: no process names its data dir, its Postgres and Kafka ports are closed.
 */
async function start(env: Record<string, string | undefined>): Promise<Start> {
  const dataDir = mkdtempSync(path.join(scratch, 'data-'));
  chmodSync(dataDir, 0o755);
  const ports = await startPorts();
  const full: Record<string, string | undefined> = { ...process.env, LOCAL_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...ports };
  for (const inherited of ['DATABASE_URL', 'KAFKA_BROKERS', 'TEST_DATABASE_URL', 'KAFKA_TOPIC_PREFIX', 'LOCAL_CACHE_DIR'])
    delete full[inherited];
  Object.assign(full, env);
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs')], {
    cwd: ROOT,
    env: full,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  expect(processesUsing(dataDir), output).toEqual([]);
  // The ports it was to start its servers on (not one a test took beforehand).
  for (const name of ['LOCAL_PG_PORT', 'LOCAL_KAFKA_PORT'])
    if (!(name in env)) expect(await portOpen(Number(full[name])), output).toBe(false);
  const problems = output
    .split('\n')
    .filter((l) => /^\[(start|infra)\] /.test(l))
    .filter((l) => !/checking Java|nothing was started|stopping|starting|initialising|adopting|reusing|fetching/.test(l));
  return { code, problems, output };
}

/** One problem line (no stack: no "    at ..." frames), matching `pattern`. */
function expectOneProblem(res: Start, pattern: RegExp): void {
  expect(res.code, res.output).not.toBe(0);
  expect(res.code, res.output).not.toBeNull();
  expect(res.problems, res.output).toHaveLength(1);
  expect(res.problems[0]).toMatch(pattern);
  expect(res.output).not.toMatch(/^\s+at /m);
}

describe('npm start names what stops it and leaves nothing running', { timeout: 120_000 }, () => {
  it('without Java, its jars cached: install a JDK or set KAFKA_BROKERS', async () => {
    const res = await start({ PATH: pathWithout(['java']), LOCAL_CACHE_DIR: jarCache(true) });
    expectOneProblem(res, /Java not found on PATH: .*apt-get install openjdk-17-jre-headless.*or set KAFKA_BROKERS/);
    expect(res.output).toContain('nothing was started');
  });

  it('without Java or Maven, its jars not cached: both named, each on its line', async () => {
    const res = await start({ PATH: pathWithout(['java', 'mvn']), LOCAL_CACHE_DIR: jarCache(false) });
    expect(res.code, res.output).toBe(1);
    expect(res.problems, res.output).toEqual([
      expect.stringMatching(/^\[start\] Java not found on PATH: .*install a JDK 17\+/),
      expect.stringMatching(/^\[start\] Maven \(mvn\) not found on PATH: it fetches Kafka's jars once .*apt-get install maven/),
    ]);
  });

  it('with a broken Java after PostgreSQL has started: one line, and the PostgreSQL it started is stopped', async () => {
    // A `java` that passes the version check and fails everything else: the failure comes while the
    // local PostgreSQL (started in parallel) is already starting, which must stop with the run.
    const bin = pathWithout(['java']);
    writeFileSync(
      path.join(bin, 'java'),
      '#!/bin/sh\nif [ "$1" = "-version" ]; then echo \'openjdk version "17.0.1"\' >&2; exit 0; fi\nexit 3\n',
      { mode: 0o755 },
    );
    const res = await start({ PATH: bin, LOCAL_CACHE_DIR: jarCache(true) });
    expectOneProblem(res, /formatting the local Kafka's storage failed \(exit 3\): install a JDK 17\+, or set KAFKA_BROKERS/);
    expect(res.output).toContain('[infra] stopping PostgreSQL');
  });

  it('with the gateway port taken: GATEWAY_PORT', async () => {
    const port = await plainListener();
    const res = await start({ GATEWAY_PORT: String(port), KAFKA_BROKERS: process.env.KAFKA_BROKERS });
    expectOneProblem(
      res,
      new RegExp(
        `^\\[start\\] port ${port} \\(the gateway\\) is taken by another process: stop it, or set GATEWAY_PORT to a free port$`,
      ),
    );
  });

  it('with a plain TCP listener on the PostgreSQL port: not reused as PostgreSQL, LOCAL_PG_PORT', async () => {
    const port = await plainListener();
    const res = await start({ LOCAL_PG_PORT: String(port), KAFKA_BROKERS: process.env.KAFKA_BROKERS });
    expectOneProblem(
      res,
      new RegExp(`^\\[start\\] port ${port} is taken by a process that is not PostgreSQL .*set LOCAL_PG_PORT to a free port$`),
    );
  });

  it('with a DATABASE_URL that is no URL, refuses connections or has a wrong password: DATABASE_URL', async () => {
    const server = new URL(process.env.TEST_DATABASE_URL!);
    const wrongPassword = new URL(server);
    wrongPassword.password = 'not-the-password';
    const cases: [string, RegExp][] = [
      ['postgres//nohost', /^\[start\] DATABASE_URL is not a URL: set it to postgres:\/\/USER:PASSWORD@HOST:5432\/DATABASE/],
      [
        `postgres://postgres:postgres@127.0.0.1:${await freePort()}/cluster`,
        /^\[start\] DATABASE_URL \(127\.0\.0\.1:\d+\/cluster\) does not connect: nothing accepts connections there: correct DATABASE_URL/,
      ],
      [
        wrongPassword.toString(),
        /^\[start\] DATABASE_URL \(.*\) does not connect: the server refused the login \(password authentication failed/,
      ],
    ];
    const results = await Promise.all(
      cases.map(([url]) => start({ DATABASE_URL: url, KAFKA_BROKERS: process.env.KAFKA_BROKERS })),
    );
    for (const [i, [, pattern]] of cases.entries()) {
      expectOneProblem(results[i], pattern);
      expect(results[i].output).not.toContain('not-the-password');
    }
  });
});
