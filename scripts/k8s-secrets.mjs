// Writes the env files a kustomize overlay's secretGenerator reads (docs/deploy.md): one per Secret,
// each holding only the keys its service reads (services/*/src/config.ts):
//
//   node scripts/k8s-secrets.mjs k8s/overlays/dev [--database-url URL] [--redis-url URL] [--force]
//
// --database-url names the server, the database and its TLS parameters (sslmode, ...); without an
// sslmode it gets sslmode=verify-full (the services refuse plaintext outside development unless
// DATABASE_ALLOW_PLAINTEXT=true; a private CA goes in DATABASE_SSL_ROOT_CERT, docs/deploy.md); its user and
// password are not used: each service connects as a database role of its own, the migration Job as
// the owner role (scripts/lib/db-roles.mjs, docs/security.md "Database roles"), each with a fresh
// password. DIR/secrets/roles.sql is the SQL an administrator runs once to create those roles
// (docs/deploy.md, "Database roles"); it is in no Secret.
//
// DIR/secrets/gateway.env   -> Secret gateway-secrets: SERVICE_SIGNING_KEY, SERVICE_PUBLIC_KEYS, REDIS_URL
// DIR/secrets/core.env      -> Secret core-secrets: SERVICE_SIGNING_KEY, SERVICE_PUBLIC_KEYS, DATABASE_URL,
//                              CODEHOST_SECRET_KEY
// DIR/secrets/delivery.env  -> Secret delivery-secrets: SERVICE_SIGNING_KEY, SERVICE_PUBLIC_KEYS, DATABASE_URL,
//                              WEBHOOK_SECRET_KEY
// DIR/secrets/evidence.env  -> Secret evidence-secrets: SERVICE_SIGNING_KEY, SERVICE_PUBLIC_KEYS, DATABASE_URL,
//                              EVIDENCE_SECRET_KEY, EVIDENCE_SIGNING_KEY (the seed that signs evidence packages)
// DIR/secrets/migrate.env   -> Secret migrate-secrets (the migration Job): DATABASE_URL (the owner role's)
// DIR/secrets/roles.sql     -> no Secret: the roles and their passwords, for the administrator
//
// Sealing keys are 32 random bytes each, signing keys Ed25519 seeds (scripts/lib/service-keys.mjs).
// The directory is git-ignored and never in the image's build context (.dockerignore). The files are
// written together or not at all: existing files are kept unless --force (regenerating sealing keys
// would orphan every sealed secret, docs/runbook.md, "Rotate a sealing key"; a new service key in one
// file would not match SERVICE_PUBLIC_KEYS in the others).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { databaseRoleNames, rolePasswords, roleSetupSql, roleUrl } from './lib/db-roles.mjs';
import { generateServiceKeys } from './lib/service-keys.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'database-url': { type: 'string', default: 'postgres://postgres-rw.postgres.svc:5432/feedback?sslmode=verify-full' },
    'redis-url': { type: 'string', default: 'redis://redis.redis.svc:6379' },
    force: { type: 'boolean', default: false },
  },
});
const dir = positionals[0];
if (!dir) {
  process.stderr.write('usage: node scripts/k8s-secrets.mjs <overlay dir> [--database-url URL] [--redis-url URL] [--force]\n');
  process.exit(2);
}
/** The server's URL, with sslmode=verify-full unless it names one (a plaintext one is kept, with a warning). */
const serverUrl = (() => {
  const u = new URL(values['database-url']);
  const mode = u.searchParams.get('sslmode');
  if (mode === null) u.searchParams.set('sslmode', 'verify-full');
  else if (mode === 'disable')
    process.stderr.write(
      'warning: --database-url says sslmode=disable: the services refuse plaintext Postgres unless DATABASE_ALLOW_PLAINTEXT=true (docs/deploy.md, "Postgres over TLS")\n',
    );
  return u.toString();
})();
const keys = generateServiceKeys();
const sealingKey = () => randomBytes(32).toString('base64');
const identity = (service) => ({ SERVICE_SIGNING_KEY: keys.signingKeys[service], SERVICE_PUBLIC_KEYS: keys.SERVICE_PUBLIC_KEYS });
const roles = databaseRoleNames();
const passwords = rolePasswords(roles);
/** The database URL as role `role` of `roles` (the owner, or a service's). */
const databaseUrl = (role) => roleUrl(serverUrl, roles[role], passwords[role]);
const database = decodeURIComponent(new URL(serverUrl).pathname.slice(1));
const files = {
  'gateway.env': { ...identity('gateway'), REDIS_URL: values['redis-url'] },
  'core.env': { ...identity('core'), DATABASE_URL: databaseUrl('core'), CODEHOST_SECRET_KEY: sealingKey() },
  'delivery.env': { ...identity('delivery'), DATABASE_URL: databaseUrl('delivery'), WEBHOOK_SECRET_KEY: sealingKey() },
  'evidence.env': {
    ...identity('evidence'),
    DATABASE_URL: databaseUrl('evidence'),
    EVIDENCE_SECRET_KEY: sealingKey(),
    EVIDENCE_SIGNING_KEY: randomBytes(32).toString('base64'),
  },
  'migrate.env': { DATABASE_URL: databaseUrl('owner') },
};
const out = path.join(dir, 'secrets');
const existing = [...Object.keys(files), 'roles.sql'].filter((name) => existsSync(path.join(out, name)));
if (existing.length && !values.force) {
  process.stderr.write(`${out}: ${existing.join(', ')} exist: kept, nothing written (--force replaces them all)\n`);
  process.exit(0);
}
mkdirSync(out, { recursive: true, mode: 0o700 });
for (const [name, entries] of Object.entries(files)) {
  const file = path.join(out, name);
  const body = Object.entries(entries)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  writeFileSync(file, `${body}\n`, { mode: 0o600 });
  process.stdout.write(`wrote ${file}\n`);
}
const sql = path.join(out, 'roles.sql');
writeFileSync(sql, roleSetupSql({ database, roles, passwords }), { mode: 0o600 });
process.stdout.write(`wrote ${sql} (run it once as the database administrator: docs/deploy.md, "Database roles")\n`);
