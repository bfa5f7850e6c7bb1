import { execFile, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * The first port the kernel hands out for outgoing connections (and for `listen(0)`): a port we
 * give a child process must lie below it, or a connection opened between our check and the
 * child's `listen` can take it (CI saw the gateway of `npm start` fail with EADDRINUSE so).
 */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) > 21_000 ? Number(low) : 32_768;
  } catch {
    return 32_768; // Linux's default; macOS and Windows start theirs at 49152
  }
}

/**
 * This process's slice of the ports between 20000 and the ephemeral range: each Vitest worker
 * (VITEST_POOL_ID) takes its own slice and walks it in order, so two workers never pick the same
 * port while one of them is still starting the process that will listen on it.
 */
const SLICES = 8;
const portSlice = (() => {
  const span = Math.floor((ephemeralLow() - 20_000) / SLICES);
  const low = 20_000 + ((Number(process.env.VITEST_POOL_ID ?? 1) - 1) % SLICES) * span;
  return { low, span, next: Math.floor(Math.random() * span) };
})();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer().once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free TCP port on loopback for a child process (which cannot be given port 0 and report back). */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < portSlice.span; tried++) {
    const port = portSlice.low + (portSlice.next++ % portSlice.span);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${portSlice.low} and ${portSlice.low + portSlice.span}`);
}

/** Two free consecutive ports (Kafka's listener and controller). */
export async function freePair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 1 < portSlice.low + portSlice.span && (await canListen(port + 1))) {
      portSlice.next++; // port + 1 is taken now
      return port;
    }
  }
}

/** A free port for every port `npm start` takes (its local servers' and the services'), by setting. */
export async function startPorts(): Promise<Record<string, string>> {
  const ports: Record<string, string> = { LOCAL_KAFKA_PORT: String(await freePair()) };
  for (const name of ['LOCAL_PG_PORT', 'GATEWAY_PORT', 'GATEWAY_METRICS_PORT', 'CORE_PORT', 'DELIVERY_PORT', 'EVIDENCE_PORT'])
    ports[name] = String(await freePort());
  return ports;
}

/**
 * Runs a command to its end without blocking this process: a test waits for a command with this,
 * never with execFileSync or spawnSync. A Vitest worker whose event loop is blocked for a minute
 * loses its link to the runner ("[vitest-worker]: Timeout calling onTaskUpdate", a failed run
 * with every test passed), and a command that takes a few seconds alone can take that long while
 * the other core runs the chaos soak. Rejects on a non-zero exit, the error carrying
 * `code`, `stdout` and `stderr`.
 */
export const run = promisify(execFile);

/**
 * Set by Vitest's global setup once it has built dist, to the checkout it built: the run's workers need
 * not build again. A checkout's path, not a flag, since a test may run another checkout's suite
 * (test/new-resource.test.ts), whose processes inherit this environment and must still build their own.
 */
const DIST_BUILT = 'CLUSTER_TEST_DIST_BUILT';

/**
 * `npm run build` without its `buf generate`: bundles each services/<name>/dist from the current
 * sources, so processes started from dist run what the tests were written against.
 * Vitest's global setup runs it once per run (its workers then skip it); benchmarks run it before their cluster.
 */
export async function buildServices(): Promise<void> {
  if (process.env[DIST_BUILT] === ROOT) return;
  const build = spawn(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve, reject) => build.on('error', reject).on('exit', resolve));
  if (code !== 0) throw new Error(`scripts/build.mjs exited with ${code}`);
}

/** Vitest's global setup: builds dist and tells the workers it started (they inherit its environment). */
export async function buildServicesOnce(): Promise<void> {
  await buildServices();
  process.env[DIST_BUILT] = ROOT;
}

/** Node's arguments for a built entry point, as production runs it (`main`, `migrate`, core's `admin-cli`, delivery's `reseal-secrets`). */
export function distArgs(name: 'core' | 'delivery' | 'evidence' | 'gateway', entry = 'main'): string[] {
  return ['--enable-source-maps', path.join(ROOT, 'services', name, 'dist', `${entry}.js`)];
}

/** Runs a service's built main.js as a real process, as `npm start` does (LOG_LEVEL warn unless `env` says otherwise). */
export function spawnService(
  name: 'core' | 'delivery' | 'evidence' | 'gateway',
  env: Record<string, string>,
  opts: { nodeArgs?: string[]; stdio?: StdioOptions } = {},
): ChildProcess {
  return spawn(process.execPath, [...(opts.nodeArgs ?? []), ...distArgs(name)], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: opts.stdio ?? ['ignore', 'ignore', 'inherit'],
  });
}

/** Polls `check` until it is true (a throw counts as false); fails after `timeoutMs`. */
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms`);
}

/** Waits until `url` answers 2xx (a service's /readyz). */
export function waitForHttp(url: string, timeoutMs = 60000): Promise<void> {
  return waitUntil(url, async () => (await fetch(url, { signal: AbortSignal.timeout(1000) })).ok, timeoutMs);
}

/** The child's pid while it runs; undefined once it has exited (its pid may then be another process's). */
export function runningPid(child: ChildProcess | undefined): number | undefined {
  return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
}

/** Resolves when the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
}

/**
 * Runs a service's built main.js with `env` until it exits (killed after `timeoutMs`): its exit code
 * and what it wrote on stderr. For the starts that must refuse, naming what is wrong.
 */
export async function runUntilExit(
  name: 'core' | 'delivery' | 'evidence' | 'gateway',
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawnService(name, env, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited(child);
  clearTimeout(timer);
  return { code: child.exitCode, stderr };
}
