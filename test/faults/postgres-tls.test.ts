import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '@cluster/db';
import { testCa, type TestCa } from '../support/certificates.ts';
import { requireEnv } from '../support/cluster.ts';
import { distArgs, exited, freePort, run, spawnService } from '../support/processes.ts';
import { readyz } from './api.ts';
import { privatePostgres, serviceProcess, type PrivatePostgres } from './support.ts';

// Managed Postgres (issue 27): a server of the test's own with ssl=on and a certificate of a CA made
// here, and an application role that may not connect to the maintenance database `postgres` (as on
// managed servers). Core and the migration job connect with sslmode=verify-full and
// DATABASE_SSL_ROOT_CERT, without DATABASE_CREATE; a CA that did not sign the server's certificate
// stops the start with a message naming the setting, and a non-zero exit.

const APP_PASSWORD = `app-${randomBytes(6).toString('hex')}`;
let dir: string;
let ca: TestCa;
let server: PrivatePostgres;
let appUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pg-tls-'));
  ca = testCa(dir, 'pg');
  server = await privatePostgres({ ssl: ca.issue('postgres') });
  await server.start();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE app LOGIN PASSWORD '${APP_PASSWORD}'`);
    await admin.query('CREATE DATABASE appdb OWNER app');
    await admin.query('REVOKE CONNECT ON DATABASE postgres FROM PUBLIC');
  } finally {
    await admin.end();
  }
  appUrl = `postgres://app:${APP_PASSWORD}@127.0.0.1:${server.port}/appdb`;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  server?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What core needs besides its database: the suite's broker, under a prefix of its own. */
const kafkaEnv = () => ({
  KAFKA_BROKERS: requireEnv().brokers.join(','),
  KAFKA_TOPIC_PREFIX: `pgtls${randomBytes(4).toString('hex')}.`,
});

/** Whether each connection of the role `app` to appdb is encrypted, by application name. */
async function appConnections(): Promise<{ application_name: string; ssl: boolean }[]> {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      `SELECT a.application_name, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
        WHERE a.usename = 'app' AND a.datname = 'appdb'`,
    );
    return rows;
  } finally {
    await admin.end();
  }
}

describe('Postgres over TLS', () => {
  it('sslmode=verify-full with DATABASE_SSL_ROOT_CERT: the migration job and core connect encrypted, never to the maintenance database', async () => {
    const env = {
      DATABASE_URL: `${appUrl}?sslmode=verify-full`,
      DATABASE_SSL_ROOT_CERT: ca.caFile,
      DATABASE_CREATE: 'false',
      ...kafkaEnv(),
    };
    // The migration Job first, as Kubernetes runs it (the role may not connect to `postgres`: it does not try).
    const job = await run(process.execPath, distArgs('core', 'migrate'), {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(job.stdout).toContain('schema migrated');
    const core = await serviceProcess('core', { ...env, MIGRATE_ON_START: 'false' });
    try {
      await core.start();
      expect((await readyz(core.port)).body?.checks?.postgres, core.tail()).toBe(true);
      const connections = await appConnections();
      expect(connections.map((c) => c.application_name)).toContain('core');
      expect(connections.every((c) => c.ssl)).toBe(true);
    } finally {
      await core.stop();
    }
  }, 120_000);

  it('a CA that did not sign the server’s certificate: core stops, naming DATABASE_SSL_ROOT_CERT, with a non-zero exit', async () => {
    const other = testCa(dir, 'other');
    const child = spawnService(
      'core',
      {
        DATABASE_URL: `${appUrl}?sslmode=verify-full`,
        DATABASE_SSL_ROOT_CERT: other.caFile,
        DATABASE_CREATE: 'false',
        CORE_PORT: String(await freePort()),
        ...kafkaEnv(),
      },
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await exited(child).finally(() => clearTimeout(timer));
    expect(child.exitCode, output).not.toBe(0);
    expect(output).toMatch(
      new RegExp(
        `Postgres at 127\\.0\\.0\\.1:${server.port}: its TLS certificate did not verify \\(\\w+: .*\\); check DATABASE_SSL_ROOT_CERT`,
      ),
    );
  }, 90_000);

  it('sslmode=require encrypts without checking the certificate; disable (or none) stays plaintext', async () => {
    for (const [mode, encrypted] of [
      ['require', true],
      ['disable', false],
    ] as const) {
      const db = createDb(`${appUrl}?sslmode=${mode}`, { schema: 'public', poolMax: 1 });
      try {
        const { rows } = await db.raw<{ rows: { ssl: boolean }[] }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
        expect(rows[0].ssl, mode).toBe(encrypted);
      } finally {
        await db.destroy();
      }
    }
  });
});
