import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dropDatabase, freshDatabaseUrl, requireEnv } from './support/cluster.ts';
import { distArgs, exited, freePort, spawnService, waitForHttp } from './support/processes.ts';

// Kubernetes runs the migration Job (k8s/base/migrate-job.yaml) before a rollout and the
// services with MIGRATE_ON_START=false: a service must refuse an unmigrated schema, and start
// once the Job's entry points have run. The built files, as the image runs them.
const ROOT = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const databaseUrl = freshDatabaseUrl('migrate');
const { brokers } = requireEnv();

afterAll(async () => {
  await dropDatabase(databaseUrl);
});

/** Runs a built entry point to its end: its exit code and output. */
async function runEntry(service: 'core' | 'delivery', entry: string, env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, distArgs(service, entry), {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      timeout: 60_000,
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('the migration job', () => {
  const env = {
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_TOPIC_PREFIX: `m${randomBytes(4).toString('hex')}.`,
    MIGRATE_ON_START: 'false',
  };

  it('is needed: with MIGRATE_ON_START=false a service refuses a schema without its migrations', async () => {
    const core = await runEntry('core', 'main', { ...env, CORE_PORT: String(await freePort()) });
    expect(core.code).not.toBe(0);
    expect(core.output).toMatch(/schema "core" lacks migrations 001-spine.*run the migration job/);
  });

  it('migrates each schema, and is idempotent', async () => {
    for (const service of ['core', 'delivery'] as const) {
      for (let round = 0; round < 2; round++) {
        const res = await runEntry(service, 'migrate', { DATABASE_URL: databaseUrl });
        expect(res.code, res.output).toBe(0);
        expect(JSON.parse(res.output.trim().split('\n').at(-1)!)).toMatchObject({ service, msg: 'schema migrated' });
      }
    }
  });

  it('lets the services start afterwards without migrating', async () => {
    const port = await freePort();
    const core = spawnService('core', { ...env, CORE_PORT: String(port) });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000);
      expect(core.exitCode).toBeNull();
    } finally {
      core.kill('SIGTERM');
      await exited(core);
    }
  });
});
