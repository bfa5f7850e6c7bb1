import { parseArgs } from 'node:util';
import { assertMigrated, createDb, ensureDatabase, migrate } from '@cluster/db';
import { readAdminConfig } from '../config.ts';
import { migrations } from '../migrations/index.ts';
import { AdminError, createAdminOperations, type AdminOptions } from './operations.ts';

/**
 * `npm run --silent admin -- <command>`: prints one JSON object on stdout;
 * errors go to stderr with exit code 1 (docs/runbook.md, "Local operations"); a usage error (an unknown
 * command or option) is one line on stderr with exit code 2, and `--help` prints the usage.
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

/** Each command's flags (optional ones in brackets), for `--help`. */
const USAGE: Record<string, string> = {
  'org create': '--name NAME',
  'org api': '--id ORG --enabled true|false',
  'user create': '--org ORG --email EMAIL --name NAME --role admin|manager|developer|client',
  'user role': '--id USER --role ROLE',
  'key create': '--user USER [--scope organization|project] [--project PROJECT] [--permissions LIST] [--name NAME]',
  'key revoke': '--id KEY',
  'session create': '--user USER',
  'codehost secret': '--org ORG --provider github',
  'agreement create': '--project PROJECT --title TITLE',
  'agreement sign': '--id AGREEMENT',
  'snapshot create': '--project PROJECT --report-type TYPE [--narrative-source SOURCE] [--summary TEXT]',
  demo: '(the demo organization, a fresh admin key)',
};

/** The usage `--help` prints: every command with its flags. */
export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  return [
    'usage: npm run --silent admin -- <command> [--flag value ...]   (prints one JSON object)',
    '',
    ...Object.keys(commands).map((c) => `  ${c.padEnd(width)}  ${USAGE[c] ?? ''}`.trimEnd()),
    '',
  ].join('\n');
}

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
  const parsed = parseCommand(argv);
  if (typeof parsed === 'number') return parsed;
  const { command, values } = parsed;
  const fail = (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  };
  // The database unreachable (ECONNREFUSED, a refused login): its one line, as any other error.
  if (database.createDatabase) {
    try {
      await ensureDatabase(databaseUrl);
    } catch (err) {
      return fail(err);
    }
  }
  const db = createDb(databaseUrl, { schema: 'core', application: 'admin-cli', poolMax: 2 });
  try {
    if (database.migrateOnStart === false) await assertMigrated(db, 'core', migrations);
    else await migrate(db, 'core', migrations);
    const out = await command(createAdminOperations(db, opts), values);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } catch (err) {
    return fail(err);
  } finally {
    await db.destroy();
  }
}

const wantsHelp = (argv: string[]) => argv.includes('--help') || argv.includes('-h');

/** The command and its flags; or, for `--help` or a usage error (printed here), the exit code. */
function parseCommand(argv: string[]): { command: AdminCommand; values: Flags } | number {
  if (wantsHelp(argv)) {
    process.stdout.write(usage());
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: Object.fromEntries(FLAGS.map((f) => [f, { type: 'string' as const }])),
    });
  } catch (err) {
    // An unknown option, a flag without its value (node:util's parseArgs): one line, no stack.
    process.stderr.write(`${err instanceof Error ? err.message : String(err)} (--help lists the commands and their flags)\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const name = positionals[0] === 'demo' ? 'demo' : positionals.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command) {
    const said = positionals.join(' ');
    process.stderr.write(`${said ? `unknown command "${said}"` : 'no command given'} (--help lists the commands)\n`);
    return 2;
  }
  return { command, values };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // The usage needs no settings: printed before they are read (and perhaps refused).
  if (wantsHelp(process.argv)) {
    process.stdout.write(usage());
    process.exit(0);
  }
  let config;
  try {
    config = readAdminConfig();
  } catch (err) {
    // A setting refused outside development (packages/platform/src/config.ts): its one line names the fix.
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  if (!config.databaseUrl) {
    process.stderr.write('DATABASE_URL is not set (npm run admin sets it for the local cluster)\n');
    process.exit(1);
  }
  process.exitCode = await runAdmin(process.argv.slice(2), config, { codehostSecretKeys: config.codehostSecretKeys });
}
