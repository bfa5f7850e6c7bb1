import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { portOpen, stopPid } from '../../scripts/lib/infra.mjs';
import { freePort, runningPid, waitUntil } from './processes.ts';

/** Where Debian's `pgbouncer` package puts the binary (PGBOUNCER_PATH elsewhere). */
const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';

/** A PgBouncer of the test's own, in front of one Postgres server. */
export interface PgBouncer {
  port: number;
  /** `url` (a database URL of the server) with its host and port replaced by this PgBouncer's. */
  via(url: string): string;
  /** Its log (connections, refusals such as `unsupported startup parameter`). */
  log(): string;
  /** Stops it by its process id and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts Debian's `pgbouncer` as a process of the test, on a free port, with a config directory of its
 * own, in front of the server of `serverUrl` (every database, `* =`), knowing that URL's user and
 * password: PgBouncer's defaults otherwise (no `ignore_startup_parameters`: the services must work
 * without it), in `poolMode` (session: the mode docs/deploy.md requires). Run as root, it runs as the
 * `postgres` user (it refuses root).
 */
export async function startPgBouncer(serverUrl: string, opts: { poolMode?: 'session' | 'transaction' } = {}): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER))
    throw new Error(
      `${PGBOUNCER} is missing: install Debian's pgbouncer package (apt-get install -y pgbouncer) or set PGBOUNCER_PATH`,
    );
  const server = new URL(serverUrl);
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o777);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const logFile = path.join(dir, 'pgbouncer.log');
  writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" "${password}"\n`);
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      `pool_mode = ${opts.poolMode ?? 'session'}`,
      `logfile = ${logFile}`,
      'max_client_conn = 200',
      'default_pool_size = 40',
      '',
    ].join('\n'),
  );
  const asPostgres =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
          gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
        }
      : {};
  for (const f of ['userlist.txt', 'pgbouncer.ini']) chmodSync(path.join(dir, f), 0o644);
  writeFileSync(logFile, '');
  chmodSync(logFile, 0o666);
  const child: ChildProcess = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...asPostgres,
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const kill = () => {
    const pid = runningPid(child);
    if (pid) process.kill(pid, 'SIGKILL');
  };
  process.once('exit', kill);
  const log = () => `${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}${stderr}`;
  try {
    await waitUntil('pgbouncer', () => portOpen(port), 20_000);
  } catch (err) {
    const output = log();
    kill();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(err as Error).message} (exit ${child.exitCode}):\n${output}`, { cause: err });
  }
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    log,
    async stop() {
      process.off('exit', kill);
      await stopPid(runningPid(child), { signal: 'SIGINT', graceMs: 5_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
