import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, run, runningPid, waitUntil } from './processes.ts';

/**
 * A RabbitMQ broker of a test's own (docs/webhooks.md, "RabbitMQ (AMQP 0-9-1)"): Debian's `rabbitmq-server`
 * as a process on private ports (AMQP, Erlang distribution, and an epmd of its own), with its node name,
 * database, logs, plugins file and Erlang cookie (HOME) in a private directory. Started and stopped by PID
 * (its process group: the start script and the Erlang VM it runs), like scripts/lib/infra.mjs starts Kafka.
 * The database stays across stop/start, so durable exchanges and queues survive a restart.
 */
export interface RabbitMq {
  port: number;
  /** amqp://127.0.0.1:<port>/ (the default vhost; guest/guest, which RabbitMQ allows from loopback). */
  url: string;
  pid(): number | undefined;
  /** Stops the broker (SIGTERM to its process group; SIGKILL after 15 s) and waits until its port is closed. */
  stop(): Promise<void>;
  /** Starts it again on the same ports and directory; resolves once it accepts AMQP connections. */
  start(): Promise<void>;
  /** Stops it, its epmd, and removes its directory. */
  close(): Promise<void>;
}

/**
 * The server script itself, not /usr/sbin/rabbitmq-server: that wrapper switches to the `rabbitmq` user, which
 * cannot write a private directory (the start failed with `cannot_log_to_file ... eacces`).
 */
export const RABBITMQ_SERVER = process.env.RABBITMQ_SERVER_PATH ?? '/usr/lib/rabbitmq/bin/rabbitmq-server';

/** Whether rabbitmq-server is installed (Debian package `rabbitmq-server`). */
export const rabbitMqInstalled = () => existsSync(RABBITMQ_SERVER);

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function startRabbitMq(): Promise<RabbitMq> {
  if (!rabbitMqInstalled()) throw new Error(`${RABBITMQ_SERVER} not found: install the Debian package rabbitmq-server`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rabbitmq-'));
  for (const d of ['home', 'mnesia', 'log']) mkdirSync(path.join(dir, d), { recursive: true });
  writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
  const port = await freePort();
  const distPort = await freePort();
  const epmdPort = await freePort();
  const env = {
    ...process.env,
    HOME: path.join(dir, 'home'),
    RABBITMQ_NODENAME: `test-${path.basename(dir).replace(/[^a-zA-Z0-9]/g, '')}@localhost`,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    ERL_EPMD_PORT: String(epmdPort),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(dir, 'advanced.config'),
  };
  let child: ChildProcess | undefined;
  const logFile = path.join(dir, 'server.out');

  const start = async () => {
    const out = openSync(logFile, 'a');
    child = spawn(RABBITMQ_SERVER, [], { env, detached: true, stdio: ['ignore', out, out] });
    closeSync(out);
    const started = child;
    await waitUntil(
      `RabbitMQ on port ${port} (log: ${logFile})`,
      async () => {
        if (!runningPid(started)) throw new Error(`rabbitmq-server exited (${started.exitCode}); see ${logFile}`);
        return portOpen(port);
      },
      60_000,
    );
  };

  const stop = async () => {
    const pid = runningPid(child);
    if (!pid) return;
    const group = () => {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    group();
    const deadline = Date.now() + 15_000;
    while ((alive(pid) || (await portOpen(port))) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid) || (await portOpen(port))) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await waitUntil(`RabbitMQ on port ${port} to stop`, async () => !(await portOpen(port)), 10_000);
    }
  };

  await start();
  return {
    port,
    url: `amqp://127.0.0.1:${port}/`,
    pid: () => runningPid(child),
    stop,
    start,
    async close() {
      await stop();
      // The epmd the broker started on its private port (it outlives the broker): `epmd -kill` on that port.
      await run('epmd', ['-kill'], { env: { ...process.env, ERL_EPMD_PORT: String(epmdPort) } }).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
