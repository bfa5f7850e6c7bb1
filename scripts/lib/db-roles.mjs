// The database roles of a deployment (docs/security.md, "Database roles"), declared once: their
// names, the SQL an administrator runs once to create them, each service's DATABASE_URL, and the
// SQL that removes them. Used by scripts/k8s-secrets.mjs (secrets/roles.sql and the Secrets'
// URLs), `npm start`'s opt-in (LOCAL_DB_ROLES=true) and the tests (test/db-roles.test.ts).
import { randomBytes } from 'node:crypto';

/** The services with a schema of their own, each connecting as a role of its own. */
export const DATABASE_SERVICES = ['core', 'delivery', 'evidence'];

/** `<prefix>_owner` (runs the migrations, owns the schemas) and `<prefix>_<service>` for each service. */
export function databaseRoleNames(prefix = 'feedback') {
  return {
    owner: `${prefix}_owner`,
    ...Object.fromEntries(DATABASE_SERVICES.map((s) => [s, `${prefix}_${s}`])),
  };
}

/** A fresh password per role (URL-safe, so it goes into a DATABASE_URL as it is). */
export function rolePasswords(roles) {
  return Object.fromEntries(Object.keys(roles).map((k) => [k, randomBytes(24).toString('base64url')]));
}

const ident = (name) => `"${name.replace(/"/g, '""')}"`;
const literal = (value) => `'${value.replace(/'/g, "''")}'`;

/**
 * The SQL an administrator runs once, in the existing database `database` (a superuser, or on a
 * managed server its administrator role with CREATEROLE; applications usually may not create
 * roles): the owner and the services' login roles; the database reachable by these roles only (no
 * CONNECT or TEMP for PUBLIC); the owner may create schemas there (the migration Job creates each
 * service's schema, owns it, and grants the service's role its rights: grantRuntimeRole).
 */
export function roleSetupSql({ database, roles, passwords }) {
  return [
    `-- Database roles of the feedback API (docs/deploy.md, "Database roles"). Run once, as an administrator,`,
    `-- connected to the database ${database}.`,
    ...Object.entries(roles).map(
      ([k, name]) => `CREATE ROLE ${ident(name)} LOGIN PASSWORD ${literal(passwords[k])} NOSUPERUSER NOCREATEDB NOCREATEROLE;`,
    ),
    databaseGrantsSql({ database, roles }),
    `-- PostgreSQL 14 or older lets every role create tables in schema public: REVOKE CREATE ON SCHEMA public FROM PUBLIC;`,
    '',
  ].join('\n');
}

/** The database's part of roleSetupSql: reachable by the roles only, the owner may create schemas. */
function databaseGrantsSql({ database, roles }) {
  return [
    `REVOKE ALL ON DATABASE ${ident(database)} FROM PUBLIC;`,
    `GRANT CONNECT ON DATABASE ${ident(database)} TO ${Object.values(roles).map(ident).join(', ')};`,
    `GRANT CREATE ON DATABASE ${ident(database)} TO ${ident(roles.owner)};`,
  ].join('\n');
}

/**
 * The SQL that removes the roles again (an administrator, connected to `database`): what they own
 * and were granted there dropped, then the roles (cluster-wide objects).
 */
export function roleTeardownSql({ roles }) {
  const names = Object.values(roles).map(ident);
  return [`DROP OWNED BY ${names.join(', ')} CASCADE;`, ...names.map((n) => `DROP ROLE IF EXISTS ${n};`), ''].join('\n');
}

/** `databaseUrl` (server, database, TLS parameters) with the credentials of role `name`. */
export function roleUrl(databaseUrl, name, password) {
  const u = new URL(databaseUrl);
  u.username = encodeURIComponent(name);
  u.password = encodeURIComponent(password);
  return u.toString();
}

/** The local opt-in's database (LOCAL_DB_ROLES=true npm start): apart from `cluster`, whose schemas the superuser owns. */
export const LOCAL_ROLES_DATABASE = 'cluster_roles';

/**
 * The roles of the local opt-in: fixed names and passwords (a loopback server whose superuser's
 * password is `postgres` anyway), so `npm run admin` finds them again.
 */
export function localRoles() {
  const roles = databaseRoleNames('feedback_local');
  return { roles, passwords: Object.fromEntries(Object.keys(roles).map((k) => [k, `local_${k}`])) };
}

/**
 * LOCAL_DB_ROLES=true: the production layout on the local server, made as its superuser
 * (`adminUrl`, any database of it): LOCAL_ROLES_DATABASE, the roles (created, or their passwords
 * reset) and the database's grants. Returns each role's URL of that database.
 */
export async function ensureLocalRoles(adminUrl) {
  const { default: pg } = await import('pg');
  const { roles, passwords } = localRoles();
  const server = new URL(adminUrl);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    const db = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [LOCAL_ROLES_DATABASE]);
    if (!db.rowCount) await client.query(`CREATE DATABASE ${ident(LOCAL_ROLES_DATABASE)}`);
    for (const [k, name] of Object.entries(roles)) {
      const exists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name])).rowCount;
      await client.query(
        `${exists ? 'ALTER' : 'CREATE'} ROLE ${ident(name)} LOGIN PASSWORD ${literal(passwords[k])} NOSUPERUSER NOCREATEDB NOCREATEROLE`,
      );
    }
    await client.query(databaseGrantsSql({ database: LOCAL_ROLES_DATABASE, roles }));
  } finally {
    await client.end();
  }
  const database = new URL(adminUrl);
  database.pathname = `/${LOCAL_ROLES_DATABASE}`;
  return Object.fromEntries(Object.entries(roles).map(([k, name]) => [k, roleUrl(database.toString(), name, passwords[k])]));
}
