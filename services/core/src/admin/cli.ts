import { parseArgs } from 'node:util';
import { assertMigrated, createDb, ensureDatabase, migrate } from '@cluster/db';
import { readAdminConfig } from '../config.ts';
import { migrations } from '../migrations/index.ts';
import { AdminError, createAdminOperations, type AdminOptions } from './operations.ts';

/**
 * `npm run --silent admin -- <command>`: prints one JSON object on stdout;
 * errors go to stderr with exit code 1 (contract.md, "Admin CLI").
 */
type Ops = ReturnType<typeof createAdminOperations>;
type Flags = Record<string, string | undefined>;
export type AdminCommand = (ops: Ops, flags: Flags) => Promise<unknown>;

const req = (flags: Flags, name: string): string => {
  const v = flags[name];
  if (!v) throw new AdminError(`--${name} is required`);
  return v;
};

/** Commands by "<noun> <verb>". Feature folders add theirs through `extraCommands`. */
export const commands: Record<string, AdminCommand> = {
  'org create': (ops, f) => ops.createOrg(req(f, 'name')),
  'org api': (ops, f) => {
    const enabled = req(f, 'enabled');
    if (enabled !== 'true' && enabled !== 'false') throw new AdminError('--enabled must be true or false');
    return ops.setApiEnabled(req(f, 'id'), enabled === 'true');
  },
  'user create': (ops, f) => ops.createUser(req(f, 'org'), req(f, 'email'), req(f, 'name'), req(f, 'role')),
  'user role': (ops, f) => ops.setRole(req(f, 'id'), req(f, 'role')),
  'key create': (ops, f) =>
    ops.createKey({ user: req(f, 'user'), scope: f.scope, project: f.project, permissions: f.permissions, name: f.name }),
  'key revoke': (ops, f) => ops.revokeKey(req(f, 'id')),
  'session create': (ops, f) => ops.createSession(req(f, 'user')),
  'codehost secret': (ops, f) => ops.rotateCodehostSecret(req(f, 'org'), req(f, 'provider')),
  'agreement create': (ops, f) => ops.createAgreement(req(f, 'project'), req(f, 'title')),
  'agreement sign': (ops, f) => ops.signAgreement(req(f, 'id')),
  'snapshot create': (ops, f) =>
    ops.createSnapshot({
      projectId: req(f, 'project'),
      reportType: req(f, 'report-type'),
      narrativeSource: f['narrative-source'],
      summary: f.summary,
    }),
  demo: (ops) => ops.demo(),
};

const FLAGS = [
  'name',
  'id',
  'enabled',
  'org',
  'email',
  'role',
  'user',
  'scope',
  'project',
  'permissions',
  'title',
  'report-type',
  'narrative-source',
  'summary',
  'provider',
] as const;

/**
 * `createDatabase` (DATABASE_CREATE): make the database first when missing, as `npm run admin` does locally.
 * `migrateOnStart` (MIGRATE_ON_START, default true): migrate the core schema first, as `npm run admin` does
 * locally; false (Kubernetes: the CLI runs in a core pod, as the core's role, which may not run DDL) only
 * checks that the migration Job has run.
 */
export async function runAdmin(
  argv: string[],
  database: { databaseUrl: string; createDatabase: boolean; migrateOnStart?: boolean },
  opts: AdminOptions = {},
): Promise<number> {
  const { databaseUrl } = database;
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: Object.fromEntries(FLAGS.map((f) => [f, { type: 'string' as const }])),
  });
  const name = positionals[0] === 'demo' ? 'demo' : positionals.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command) {
    process.stderr.write(`unknown command "${positionals.join(' ')}"; commands: ${Object.keys(commands).join(', ')}\n`);
    return 1;
  }
  if (database.createDatabase) await ensureDatabase(databaseUrl);
  const db = createDb(databaseUrl, { schema: 'core', application: 'admin-cli', poolMax: 2 });
  try {
    if (database.migrateOnStart === false) await assertMigrated(db, 'core', migrations);
    else await migrate(db, 'core', migrations);
    const out = await command(createAdminOperations(db, opts), values);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } catch (err) {
    const message = err instanceof AdminError ? err.message : err instanceof Error ? err.message : String(err);
    process.stderr.write(`${message}\n`);
    return 1;
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const config = readAdminConfig();
  if (!config.databaseUrl) {
    process.stderr.write('DATABASE_URL is not set (npm run admin sets it for the local cluster)\n');
    process.exit(1);
  }
  process.exitCode = await runAdmin(process.argv.slice(2), config, { codehostSecretKeys: config.codehostSecretKeys });
}
