import type { Knex } from 'knex';

/** `name` double-quoted as a Postgres identifier. */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The runtime role's rights on `schema`, granted by the migration step as the schema's owner (the
 * role that ran the migrations): USAGE on the schema (not CREATE: no DDL), the DML its stores run on
 * every table, USAGE on the sequences (nextval), EXECUTE on the schema's functions (the trigger
 * functions); of the migrations' own bookkeeping only a read of knex_migrations (assertMigrated).
 * Default privileges give the same to what later migrations create, so a table added by an owner
 * outside this step is not left unreadable. Nothing on any other schema: each service's role is
 * refused (permission denied) everywhere but its own schema. Idempotent: run after every migration.
 */
export async function grantRuntimeRole(knex: Knex, schema: string, role: string): Promise<void> {
  const s = ident(schema);
  const r = ident(role);
  const exists = await knex.raw<{ rows: { present: boolean; self: boolean }[] }>(
    'SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ?) AS present, ? = current_user AS self',
    [role, role],
  );
  const row = exists.rows[0];
  if (!row?.present)
    throw new Error(`DATABASE_RUNTIME_ROLE: role "${role}" does not exist; create it first (docs/deploy.md, "Database roles")`);
  // The runtime role is the owner itself (one role for everything, as in local development): it has every right already.
  if (row.self) return;
  await knex.transaction(async (trx) => {
    // Under the schema's migration lock: two runs granting at once could fail on "tuple concurrently updated".
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`migrate:${schema}`]);
    await trx.raw(`GRANT USAGE ON SCHEMA ${s} TO ${r}`);
    await trx.raw(`REVOKE CREATE ON SCHEMA ${s} FROM ${r}`);
    await trx.raw(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${r}`);
    await trx.raw(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${s} TO ${r}`);
    await trx.raw(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${s} TO ${r}`);
    // The migrations' bookkeeping stays the owner's: a service only checks what ran.
    await trx.raw(`REVOKE ALL ON ${s}.knex_migrations, ${s}.knex_migrations_lock FROM ${r}`);
    await trx.raw(`GRANT SELECT ON ${s}.knex_migrations TO ${r}`);
    await trx.raw(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${r}`);
    await trx.raw(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT USAGE ON SEQUENCES TO ${r}`);
    await trx.raw(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT EXECUTE ON FUNCTIONS TO ${r}`);
  });
}

/**
 * What the connected role may do beyond a runtime role's DML on `schema` (empty: nothing): a pod
 * connected as a superuser or the schema's owner, or able to create there, says so at start
 * (openDatabase in @cluster/platform), since its credentials would then change or reach more than
 * its own rows.
 */
export async function excessPrivileges(knex: Knex, schema: string): Promise<string[]> {
  const { rows } = await knex.raw<{
    rows: { superuser: boolean; owner: boolean; createInSchema: boolean; createSchema: boolean }[];
  }>(
    `SELECT r.rolsuper AS superuser,
            COALESCE(pg_has_role(current_user, n.nspowner, 'USAGE'), false) AS owner,
            COALESCE(has_schema_privilege(current_user, n.oid, 'CREATE'), false) AS "createInSchema",
            has_database_privilege(current_user, current_database(), 'CREATE') AS "createSchema"
       FROM pg_roles r LEFT JOIN pg_namespace n ON n.nspname = ?
      WHERE r.rolname = current_user`,
    [schema],
  );
  const row = rows[0];
  if (!row) return [];
  if (row.superuser) return ['superuser'];
  return [
    ...(row.owner ? [`owner of schema ${schema}`] : []),
    ...(row.createInSchema && !row.owner ? [`CREATE on schema ${schema}`] : []),
    ...(row.createSchema ? ['CREATE on the database'] : []),
  ];
}
