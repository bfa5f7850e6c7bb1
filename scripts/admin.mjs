// `npm run --silent admin -- <command>`: the admin CLI against the local cluster's
// database (or DATABASE_URL), built first (services/core/dist/admin-cli.js). Prints one
// JSON object; errors on stderr, exit 1.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { build } from './build.mjs';
import { ROOT } from './lib/bootstrap.mjs';
import { LOCAL_ROLES_DATABASE, localRoles, roleUrl } from './lib/db-roles.mjs';

await build();

const pgPort = process.env.LOCAL_PG_PORT ?? '54329';
// Evidence keys live in the evidence service's schema: its own CLI; everything else is the core's.
const service = process.argv[2] === 'evidence-key' ? 'evidence' : 'core';
const env = {
  // A local checkout's CLI: the development keys of `npm start`'s cluster, unless told otherwise.
  CLUSTER_ENV: 'development',
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? `postgres://postgres:postgres@127.0.0.1:${pgPort}/cluster`,
  DATABASE_CREATE: process.env.DATABASE_CREATE ?? 'true',
  LOG_LEVEL: 'warn',
};
if (process.env.LOCAL_DB_ROLES === 'true' && !process.env.DATABASE_URL) {
  // `LOCAL_DB_ROLES=true npm start`'s cluster: the service's own role, which only checks its schema.
  const { roles, passwords } = localRoles();
  const url = `postgres://127.0.0.1:${pgPort}/${LOCAL_ROLES_DATABASE}`;
  Object.assign(env, {
    DATABASE_URL: roleUrl(url, roles[service], passwords[service]),
    MIGRATE_ON_START: 'false',
    DATABASE_CREATE: 'false',
  });
}
const res = spawnSync(
  process.execPath,
  ['--enable-source-maps', path.join(ROOT, `services/${service}/dist/admin-cli.js`), ...process.argv.slice(2)],
  {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  },
);
process.exit(res.status ?? 1);
