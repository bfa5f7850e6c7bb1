import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, run, runningPid, waitUntil } from './processes.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CACHE = path.resolve(process.env.LOCAL_CACHE_DIR ?? path.join(ROOT, '.cache'));
/** The version infra/elasticmq/pom.xml names. */
export const ELASTICMQ_VERSION = '1.6.14';
const libsDir = path.join(CACHE, `elasticmq-${ELASTICMQ_VERSION}`, 'libs');

/**
 * ElasticMQ's jars, fetched once from Maven Central with mvn into the git-ignored `.cache/` (LOCAL_CACHE_DIR),
 * as scripts/lib/infra.mjs fetches Kafka's.
 */
export async function elasticMqLibs(): Promise<string> {
  if (existsSync(libsDir) && readdirSync(libsDir).some((f) => f.startsWith('elasticmq-server_2.13'))) return libsDir;
  mkdirSync(libsDir, { recursive: true });
  await run(
    'mvn',
    [
      '-B',
      '-q',
      '-f',
      path.join(ROOT, 'infra', 'elasticmq', 'pom.xml'),
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${libsDir}`,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return libsDir;
}

/**
 * An SQS-compatible server of a test's own (ElasticMQ, from Maven Central, run with java) on a private port,
 * started and stopped by PID. Its queues live in memory: a restart loses them, so `start` takes the queues to
 * create again.
 */
export interface ElasticMq {
  port: number;
  /** http://127.0.0.1:<port>: the endpoint; queue URLs are <endpoint>/000000000000/<name>. */
  endpoint: string;
  pid(): number | undefined;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Starts ElasticMQ; `queues` (names; `.fifo` ones are FIFO queues) are created at every start by its configuration. */
export async function startElasticMq(queues: string[]): Promise<ElasticMq> {
  const libs = await elasticMqLibs();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'elasticmq-'));
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const conf = path.join(dir, 'elasticmq.conf');
  const queueConf = queues
    .map((q) => `  "${q}" { ${q.endsWith('.fifo') ? 'fifo = true, contentBasedDeduplication = false' : ''} }`)
    .join('\n');
  writeFileSync(
    conf,
    [
      'include classpath("application.conf")',
      `node-address { protocol = http, host = "127.0.0.1", port = ${port}, context-path = "" }`,
      `rest-sqs { enabled = true, bind-port = ${port}, bind-hostname = "127.0.0.1", sqs-limits = strict }`,
      'rest-stats { enabled = false }',
      `queues {\n${queueConf}\n}`,
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  const logFile = path.join(dir, 'server.out');

  const start = async () => {
    const out = openSync(logFile, 'a');
    child = spawn('java', ['-Xmx256m', `-Dconfig.file=${conf}`, '-cp', `${libs}/*`, 'org.elasticmq.server.Main'], {
      detached: true,
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    const started = child;
    await waitUntil(
      `ElasticMQ on port ${port} (log: ${logFile})`,
      async () => {
        if (!runningPid(started)) throw new Error(`ElasticMQ exited (${started.exitCode}); see ${logFile}`);
        return (await fetch(`${endpoint}/?Action=ListQueues`, { signal: AbortSignal.timeout(1000) })).ok;
      },
      60_000,
    );
  };

  const stop = async () => {
    const pid = runningPid(child);
    if (!pid) return;
    const stopped = child!;
    process.kill(pid, 'SIGKILL');
    await new Promise<void>((resolve) => {
      if (stopped.exitCode !== null || stopped.signalCode !== null) return resolve();
      stopped.once('exit', () => resolve());
    });
  };

  await start();
  return {
    port,
    endpoint,
    pid: () => runningPid(child),
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
