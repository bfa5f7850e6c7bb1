import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { dropDatabase, freshDatabaseUrl } from './support/cluster.ts';
import type { Json } from './support/json.ts';
import { distArgs } from './support/processes.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const databaseUrl = freshDatabaseUrl('cli');
afterAll(() => dropDatabase(databaseUrl));

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
      ['nonsense', 'command'],
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
