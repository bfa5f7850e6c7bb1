import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { dropDatabase, freshDatabaseUrl } from './support/cluster.ts';
import type { Json } from './support/json.ts';
import { distArgs, freePort } from './support/processes.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const databaseUrl = freshDatabaseUrl('cli');
// `npm run admin`'s own databases: the running cluster's (found through its state file) and another one.
const clusterUrl = freshDatabaseUrl('cli_state');
const otherUrl = freshDatabaseUrl('cli_other');
const dataDir = mkdtempSync(path.join(tmpdir(), 'admin-'));
chmodSync(dataDir, 0o755);
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await Promise.all([databaseUrl, clusterUrl, otherUrl].map(dropDatabase));
});

/** Runs the admin CLI as `npm run admin` does; returns parsed stdout, stderr and the exit code. */
function admin(...args: string[]): Promise<{ code: number; json: Json; stderr: string; lines: number }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...distArgs('core', 'admin-cli'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl },
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        const out = stdout.trim();
        resolve({
          code: err ? Number(err.code ?? 1) : 0,
          json: out ? JSON.parse(out) : undefined,
          stderr: stderr.trim(),
          lines: out.split('\n').length,
        });
      },
    );
  });
}

describe('admin CLI', { timeout: 120_000 }, () => {
  it('creates an organization, users and keys, printing one JSON object each', async () => {
    const org = await admin('org', 'create', '--name', 'Acme');
    expect(org.code).toBe(0);
    expect(org.lines).toBe(1);
    expect(Object.keys(org.json)).toEqual(['id']);
    const user = await admin(
      'user',
      'create',
      '--org',
      org.json.id,
      '--email',
      'a@acme.test',
      '--name',
      'Ada',
      '--role',
      'admin',
    );
    expect(user.code).toBe(0);
    const key = await admin('key', 'create', '--user', user.json.id, '--scope', 'organization', '--name', 'ci');
    expect(key.code).toBe(0);
    expect(Object.keys(key.json).sort()).toEqual(['id', 'key', 'prefix']);
    expect(key.json.key.startsWith(key.json.prefix)).toBe(true);
    const revoked = await admin('key', 'revoke', '--id', key.json.id);
    expect(revoked.json).toMatchObject({ id: key.json.id, revokedAt: expect.any(String) });
    const api = await admin('org', 'api', '--id', org.json.id, '--enabled', 'false');
    expect(api.json).toEqual({ id: org.json.id, apiEnabled: false });
    const role = await admin('user', 'role', '--id', user.json.id, '--role', 'manager');
    expect(role.json).toEqual({ id: user.json.id, role: 'manager' });
    const session = await admin('session', 'create', '--user', user.json.id);
    expect(session.json).toMatchObject({ token: expect.any(String), expiresAt: expect.any(String) });
  });

  it("refuses minting outside the spec's rules with exit code 1 and a message on stderr", async () => {
    const org = (await admin('org', 'create', '--name', 'Rules')).json;
    const dev = (await admin('user', 'create', '--org', org.id, '--email', 'd@r.test', '--name', 'Dev', '--role', 'developer'))
      .json;
    const client = (await admin('user', 'create', '--org', org.id, '--email', 'c@r.test', '--name', 'Cli', '--role', 'client'))
      .json;
    const cases = [
      ['key', 'create', '--user', dev.id, '--scope', 'organization'],
      ['key', 'create', '--user', client.id, '--scope', 'organization'],
      ['key', 'create', '--user', dev.id, '--scope', 'project'],
      ['user', 'create', '--org', org.id, '--email', 'x@r.test', '--name', 'X', '--role', 'wizard'],
    ];
    const results = await Promise.all(cases.map((args) => admin(...args)));
    for (const [i, args] of cases.entries()) {
      const res = results[i];
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.json).toBeUndefined();
      expect(res.stderr.length).toBeGreaterThan(0);
    }
  });

  it('demo creates the demo organization once and mints a fresh admin key each time', async () => {
    const first = (await admin('demo')).json;
    const second = (await admin('demo')).json;
    expect(second.organizationId).toBe(first.organizationId);
    expect(second.apiKey.key).not.toBe(first.apiKey.key);
    expect(first.users.map((u: { role: string }) => u.role).sort()).toEqual(['admin', 'client', 'developer']);
    expect(first.projects).toHaveLength(1);
  });
});

/** The organizations in `url`'s core schema (none when the database or the schema does not exist). */
async function organizations(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  try {
    await c.connect();
  } catch {
    return [];
  }
  try {
    const { rows } = await c.query('SELECT name FROM core.organizations ORDER BY name');
    return rows.map((r: { name: string }) => r.name);
  } catch {
    return [];
  } finally {
    await c.end();
  }
}

/**
 * `npm run admin` (scripts/admin.mjs) as an operator runs it, with its own data dir (LOCAL_DATA_DIR),
 * a local PostgreSQL port where nothing listens (LOCAL_PG_PORT) and none of the suite's database or
 * development settings: only `env` says where to go.
 */
async function npmAdmin(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const base: Record<string, string | undefined> = {
    ...process.env,
    LOCAL_DATA_DIR: dataDir,
    LOCAL_PG_PORT: String(await freePort()),
  };
  for (const name of ['DATABASE_URL', 'CLUSTER_ENV', 'CORE_URL', 'CODEHOST_SECRET_KEY', 'EVIDENCE_SECRET_KEY', 'LOCAL_DB_ROLES'])
    delete base[name];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'scripts', 'admin.mjs'), ...args],
      { cwd: ROOT, env: { ...base, ...env }, encoding: 'utf8' },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** stderr is one line and no stack ("    at ..." frames). */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0];
}

describe('npm run admin', { timeout: 120_000 }, () => {
  it('prints its usage on --help and -h, every command listed, and exits 0', async () => {
    const [long, short] = await Promise.all([npmAdmin(['--help']), npmAdmin(['org', 'create', '-h'])]);
    for (const res of [long, short]) {
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/^usage: npm run --silent admin -- <command>/);
      for (const command of ['org create', 'key create', 'codehost secret', 'demo', 'evidence-key rotate'])
        expect(res.stdout).toContain(`  ${command}`);
      expect(res.stdout).toContain('LOCAL_DATA_DIR');
      expect(res.stderr).toBe('');
    }
  });

  it('answers an unknown command, an unknown option and no command with one line and exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['nonsense', 'command'], /^unknown command "nonsense command" \(--help lists the commands\)$/],
      [['org', 'create', '--colour', 'red'], /Unknown option '--colour'.*--help lists the commands and their flags/],
      [[], /^no command given \(--help lists the commands\)$/],
      [['evidence-key', 'delete'], /^unknown command "evidence-key delete" \(usage: evidence-key rotate --org ORG\)$/],
    ];
    const results = await Promise.all(cases.map(([args]) => npmAdmin(args)));
    for (const [i, [args, message]] of cases.entries()) {
      expect(results[i].code, args.join(' ')).toBe(2);
      expect(oneLine(results[i].stderr)).toMatch(message);
      expect(results[i].stdout).toBe('');
    }
  });

  it("works on the running npm start's database, read from its state file, not on the default port's", async () => {
    // What `npm start` records once it is up (scripts/lib/cluster-state.mjs), as a cluster on other ports would.
    const postgresUrl = new URL(clusterUrl);
    postgresUrl.pathname = '/postgres';
    writeFileSync(
      path.join(dataDir, 'cluster.json'),
      JSON.stringify({
        pid: process.pid,
        databaseUrl: clusterUrl,
        postgresUrl: postgresUrl.toString(),
        localDbRoles: false,
        coreUrl: `http://127.0.0.1:${await freePort()}`,
        development: true,
      }),
    );
    try {
      // LOCAL_PG_PORT (set by npmAdmin) names a port where nothing listens: only the state leads to the database.
      const res = await npmAdmin(['org', 'create', '--name', 'Through the state file']);
      expect(res.code, res.stderr).toBe(0);
      const { id } = JSON.parse(res.stdout);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await organizations(clusterUrl)).toEqual(['Through the state file']);
    } finally {
      rmSync(path.join(dataDir, 'cluster.json'));
    }
    // Without the state (its npm start stopped), the default local port: nothing there, a one-line error.
    const stopped = await npmAdmin(['org', 'create', '--name', 'Nowhere']);
    expect(stopped.code).toBe(1);
    expect(oneLine(stopped.stderr)).toMatch(/ECONNREFUSED/);
  });

  it('refuses development keys for a database that is not the local one unless CLUSTER_ENV=development or the keys are given', async () => {
    const refused = await Promise.all([
      npmAdmin(['org', 'create', '--name', 'Sealed with dev keys'], { DATABASE_URL: otherUrl }),
      npmAdmin(['evidence-key', 'rotate', '--org', '00000000-0000-4000-8000-000000000000'], { DATABASE_URL: otherUrl }),
    ]);
    const where = `${new URL(otherUrl).hostname}:${new URL(otherUrl).port}${new URL(otherUrl).pathname}`;
    for (const [res, key] of [
      [refused[0], 'CODEHOST_SECRET_KEY'],
      [refused[1], 'EVIDENCE_SECRET_KEY'],
    ] as const) {
      expect(res.code).toBe(1);
      const line = oneLine(res.stderr);
      expect(line).toContain(`DATABASE_URL (${where}) is not the local cluster's database`);
      expect(line).toContain(`set ${key} to that cluster's key`);
      expect(line).toContain('CLUSTER_ENV=development');
    }
    // Nothing was written: not even the database was made.
    expect(await organizations(otherUrl)).toEqual([]);

    // The cluster's own key given (and no CLUSTER_ENV): the production rules, which name what else is missing.
    const withKey = await npmAdmin(['org', 'create', '--name', 'With its key'], {
      DATABASE_URL: otherUrl,
      CODEHOST_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    expect(withKey.code).toBe(1);
    expect(oneLine(withKey.stderr)).toMatch(/DATABASE_URL .*(sslmode|plaintext)/i);

    // Said explicitly: a development database.
    const development = await npmAdmin(['org', 'create', '--name', 'Development, said'], {
      DATABASE_URL: otherUrl,
      CLUSTER_ENV: 'development',
      DATABASE_CREATE: 'true',
    });
    expect(development.code, development.stderr).toBe(0);
    expect(await organizations(otherUrl)).toEqual(['Development, said']);
  });
});
