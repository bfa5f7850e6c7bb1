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
  const all = Object.values(roles).map(ident).join(', ');
  return [
    `-- Database roles of the feedback API (docs/deploy.md, "Database roles"). Run once, as an administrator,`,
    `-- connected to the database ${database}.`,
    ...Object.entries(roles).map(
      ([k, name]) => `CREATE ROLE ${ident(name)} LOGIN PASSWORD ${literal(passwords[k])} NOSUPERUSER NOCREATEDB NOCREATEROLE;`,
    ),
    `REVOKE ALL ON DATABASE ${ident(database)} FROM PUBLIC;`,
    `GRANT CONNECT ON DATABASE ${ident(database)} TO ${all};`,
    `GRANT CREATE ON DATABASE ${ident(database)} TO ${ident(roles.owner)};`,
    `-- PostgreSQL 14 or older lets every role create tables in schema public: REVOKE CREATE ON SCHEMA public FROM PUBLIC;`,
    '',
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
