import { execFileSync, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** A free TCP port on loopback (child processes cannot be given port 0 and report back). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * `npm run build` without its `buf generate`: bundles each services/<name>/dist from the current
 * sources, so processes started from dist run what the tests were written against.
 * Vitest's global setup runs it once per run; benchmarks run it before their cluster.
 */
export function buildServices(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
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
