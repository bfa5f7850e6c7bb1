// `npm run --silent admin -- <command>`: the admin CLI, built first (services/core/dist/admin-cli.js;
// evidence-key commands: services/evidence/dist/admin-cli.js). Prints one JSON object; errors on
// stderr, exit 1; a usage error one line, exit 2; `--help` the usage.
//
// Which cluster (docs/runbook.md, "Local operations"): DATABASE_URL when given; otherwise the one
// the running `npm start` recorded in its data dir (scripts/lib/cluster-state.mjs: its database, its
// core), so that the CLI follows the ports `npm start` was given; with no `npm start` running, the
// local PostgreSQL on LOCAL_PG_PORT. Development keys (CLUSTER_ENV=development) only for that local
// cluster: against any other database the operator passes the cluster's keys or says
// CLUSTER_ENV=development, else the CLI refuses before it connects (issue 37: secrets sealed with
// the public development keys are readable by anyone).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { build } from './build.mjs';
import { ROOT } from './lib/bootstrap.mjs';
import { readClusterState } from './lib/cluster-state.mjs';
import { LOCAL_ROLES_DATABASE, localRoles, roleUrl } from './lib/db-roles.mjs';
import { DATA, PG_PORT } from './lib/infra.mjs';

const argv = process.argv.slice(2);
const help = argv.includes('--help') || argv.includes('-h');
// Evidence keys live in the evidence service's schema: its own CLI; everything else is the core's.
const service = argv[0] === 'evidence-key' ? 'evidence' : 'core';
await build({ services: help ? ['core', 'evidence'] : [service] });
const cli = (name) => path.join(ROOT, `services/${name}/dist/admin-cli.js`);
const run = (name, args, env) =>
  spawnSync(process.execPath, ['--enable-source-maps', cli(name), ...args], { cwd: ROOT, env, stdio: 'inherit' }).status ?? 1;

if (help) {
  run('core', ['--help'], process.env);
  run('evidence', ['--help'], process.env);
  process.stdout.write(
    [
      '',
      `The cluster: DATABASE_URL when set, else the running npm start's (${path.join(DATA, 'cluster.json')}; LOCAL_DATA_DIR for`,
      "another data dir), else the local PostgreSQL on LOCAL_PG_PORT. Against another database, pass that cluster's keys",
      '(CODEHOST_SECRET_KEY; for evidence-key EVIDENCE_SECRET_KEY and its service keys) or set CLUSTER_ENV=development.',
      '',
    ].join('\n'),
  );
  process.exit(0);
}

const state = readClusterState();
const pgPort = state ? Number(new URL(state.postgresUrl).port) : PG_PORT;
const given = process.env.DATABASE_URL;
const local = !given || isLocalDatabase(given);

/** Whether `url` is the local development database: the running npm start's, or the local PostgreSQL's port on loopback. */
function isLocalDatabase(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return false; // the CLI names the bad URL
  }
  const server = (x) => `${x.hostname}:${x.port || 5432}`;
  if (state && server(u) === server(new URL(state.databaseUrl))) return true;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) && Number(u.port) === pgPort;
}

/** The settings that seal secrets with the cluster's own keys, by CLI (each read by that service's config). */
const KEYS = { core: ['CODEHOST_SECRET_KEY'], evidence: ['EVIDENCE_SECRET_KEY'] };

const env = { ...process.env, LOG_LEVEL: 'warn' };
if (local) {
  // The local cluster: the development keys of `npm start`'s cluster, unless told otherwise.
  env.CLUSTER_ENV ??= 'development';
  env.DATABASE_CREATE ??= 'true';
  env.DATABASE_URL = given ?? state?.databaseUrl ?? `postgres://postgres:postgres@127.0.0.1:${pgPort}/cluster`;
  if (state && !process.env.CORE_URL) env.CORE_URL = state.coreUrl;
  if ((process.env.LOCAL_DB_ROLES === 'true' || state?.localDbRoles) && !given) {
    // `LOCAL_DB_ROLES=true npm start`'s cluster: the service's own role, which only checks its schema.
    const { roles, passwords } = localRoles();
    Object.assign(env, {
      DATABASE_URL: roleUrl(`postgres://127.0.0.1:${pgPort}/${LOCAL_ROLES_DATABASE}`, roles[service], passwords[service]),
      MIGRATE_ON_START: 'false',
      DATABASE_CREATE: 'false',
    });
  }
} else if (!URL.canParse(given)) {
  process.stderr.write(
    'DATABASE_URL is not a URL: set it to postgres://USER:PASSWORD@HOST:5432/DATABASE, or unset it for the local cluster\n',
  );
  process.exit(1);
} else if (!process.env.CLUSTER_ENV && KEYS[service].some((k) => !process.env[k])) {
  const u = new URL(given);
  process.stderr.write(
    `DATABASE_URL (${u.hostname}:${u.port || 5432}${u.pathname}) is not the local cluster's database, and the public development keys would seal its secrets: ` +
      `set ${KEYS[service].join(', ')} to that cluster's key (and its other keys), or CLUSTER_ENV=development if it is a development database\n`,
  );
  process.exit(1);
}
process.exit(run(service, argv, env));
