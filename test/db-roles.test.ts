import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  databaseRoleNames,
  rolePasswords,
  roleSetupSql,
  roleTeardownSql,
  roleUrl,
  type DatabaseService,
} from '../scripts/lib/db-roles.mjs';
import { createDb, excessPrivileges } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl, requireEnv, startTestCluster, type TestCluster } from './support/cluster.ts';
import { createReceivers } from './support/receiver.ts';
import { distArgs, run } from './support/processes.ts';

// One database role per service (docs/security.md, "Database roles"): the migration Job's entries run
// as the owner role and grant each service's role the DML on its own schema; the services then run,
// as in production, with their own DATABASE_URLs. Roles are cluster-wide: this run's have names of
// its own and are dropped at the end.
const ROOT = path.resolve(import.meta.dirname, '..');
const SERVICES: DatabaseService[] = ['core', 'delivery', 'evidence'];
const roles = databaseRoleNames(`fbt_${randomBytes(4).toString('hex')}`);
const passwords = rolePasswords(roles);
const databaseUrl = freshDatabaseUrl('roles');
const databaseName = new URL(databaseUrl).pathname.slice(1);
const urlOf = (role: keyof typeof roles) => roleUrl(databaseUrl, roles[role], passwords[role]);
const receivers = createReceivers();
let rolesCreated = false;
let c: TestCluster | undefined;

/** A statement on a connection of its own, as `url`'s role; its rows, or the error's SQLSTATE and message. */
async function sql(url: string, text: string): Promise<{ rows?: Record<string, unknown>[]; code?: string; message?: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return { rows: (await client.query(text)).rows };
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return { code: e.code, message: e.message };
  } finally {
    await client.end();
  }
}

/** A built entry point run to its end: its exit code and output. */
async function runEntry(service: DatabaseService, args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [...distArgs(service, args[0]), ...args.slice(1)], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_CREATE: 'false', ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, output: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** The migration Job's container for `service`: the owner's URL, the service's role to grant. */
const migrateAs = (service: DatabaseService, env: Record<string, string> = {}) =>
  runEntry(service, ['migrate'], { DATABASE_URL: urlOf('owner'), DATABASE_RUNTIME_ROLE: roles[service], ...env });

beforeAll(async () => {
  const admin = new URL(requireEnv().url);
  admin.pathname = '/postgres';
  await sql(admin.toString(), `CREATE DATABASE "${databaseName}"`);
  // What an operator runs once (docs/deploy.md), as the server's administrator.
  const setup = await sql(databaseUrl, roleSetupSql({ database: databaseName, roles, passwords }));
  expect(setup.code, setup.message).toBeUndefined();
  rolesCreated = true;
  for (const service of SERVICES) {
    const res = await migrateAs(service);
    expect(res.code, res.output).toBe(0);
    expect(JSON.parse(res.stdout.trim().split('\n').at(-1)!)).toMatchObject({ service, runtimeRole: roles[service] });
  }
  c = await startTestCluster({
    roles: { databaseUrl, core: urlOf('core'), delivery: urlOf('delivery'), evidence: urlOf('evidence') },
    env: { WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '100' },
  });
}, 180_000);

afterAll(async () => {
  await receivers.closeAll();
  await c?.stop();
  await dropDatabase(databaseUrl);
  if (!rolesCreated) return;
  // The database is gone, and with it what the roles owned there; the maintenance database holds nothing of theirs.
  const admin = new URL(requireEnv().url);
  admin.pathname = '/postgres';
  const res = await sql(admin.toString(), roleTeardownSql({ roles }));
  expect(res.code, res.message).toBeUndefined();
  const left = await sql(
    admin.toString(),
    `SELECT rolname FROM pg_roles WHERE rolname LIKE '${roles.owner.replace(/_owner$/, '')}%'`,
  );
  expect(left.rows).toEqual([]);
});

describe('one database role per service', () => {
  it('leaves every schema and everything in it to the owner role; the services own nothing', async () => {
    const owners = await sql(
      databaseUrl,
      `SELECT DISTINCT n.nspname AS schema, pg_get_userbyid(c.relowner) AS owner
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname IN ('core', 'delivery', 'evidence')
       UNION
       SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname IN ('core', 'delivery', 'evidence')
       ORDER BY 1`,
    );
    expect(owners.rows).toEqual(SERVICES.map((schema) => ({ schema, owner: roles.owner })));
  });

  it('lets each service do its work through the gateway, as its own role', async () => {
    const cluster = c!;
    // The core: seeding (admin operations as the core's role) and a project through the gateway.
    const org = await cluster.seedOrg('Roles Org');
    // The delivery: a subscription, then an entry whose event the core's outbox relay (its leader
    // connection, LISTEN and advisory lock, as the core's role) publishes and the delivery service
    // fans out and delivers (its rows, sequences and due-listener as the delivery's role).
    const receiver = await receivers.start();
    const sub = await cluster.api(org.key, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const release = await cluster.api(org.key, 'POST', `/projects/${org.projectId}/releases`, {
      name: 'Roles',
      startDate: '2026-12-01',
      endDate: '2026-12-31',
    });
    expect(release.status, JSON.stringify(release.body)).toBe(201);
    const entry = await cluster.api(org.key, 'POST', `/projects/${org.projectId}/entries`, {
      title: 'Works with least privilege',
      description: 'as its own role',
      type: 'feedback',
      releaseId: release.body.id,
    });
    expect(entry.status, JSON.stringify(entry.body)).toBe(201);
    const [delivered] = await receiver.waitFor(1, undefined, 30_000);
    expect(delivered.body).toMatchObject({ eventName: 'entry.created', entityId: entry.body.id });
    const attempt = await cluster.api(org.key, 'GET', `/webhooks/${sub.body.id}/deliveries/${delivered.body.id}`);
    expect(attempt.status, JSON.stringify(attempt.body)).toBe(200);

    // The evidence: a key rotated by its admin CLI in a pod (the evidence's role, MIGRATE_ON_START=false:
    // it checks the schema instead of migrating it), then a signed package built and stored.
    const rotated = await runEntry('evidence', ['admin-cli', 'evidence-key', 'rotate', '--org', org.orgId], {
      DATABASE_URL: urlOf('evidence'),
      MIGRATE_ON_START: 'false',
      CORE_URL: `http://127.0.0.1:${cluster.ports.core}`,
    });
    expect(rotated.code, rotated.output).toBe(0);
    const evidence = await fetch(`${cluster.baseUrl}/releases/${release.body.id}/evidence`, {
      headers: { authorization: `Bearer ${org.key}` },
    });
    expect(evidence.status).toBe(200);
    expect(evidence.headers.get('x-service-evidence-key-prefix')).toBe(JSON.parse(rotated.stdout).prefix);

    // The core's admin CLI in a pod, likewise: it works without migrating.
    const created = await runEntry('core', ['admin-cli', 'org', 'create', '--name', 'From a pod'], {
      DATABASE_URL: urlOf('core'),
      MIGRATE_ON_START: 'false',
    });
    expect(created.code, created.output).toBe(0);
  });

  it("keeps the core's outbox relay out of the delivery role's reach: its leases are rows of the core schema", async () => {
    // Issue 37: with one database, a relay led by an advisory lock could be stopped by any role, the
    // delivery's too (pg_advisory_lock on the same key). The lease rows (docs/security.md) it cannot touch.
    const delivery = urlOf('delivery');
    for (const text of [
      "UPDATE core.outbox_leases SET holder = 'delivery', \"expiresAt\" = 'infinity'",
      'INSERT INTO core.outbox_relays (holder, pid, "backendStart", "expiresAt") VALUES (\'d\', 1, now(), \'infinity\')',
      'SELECT * FROM core.outbox_leases FOR UPDATE',
      'LOCK TABLE core.outbox_leases IN ACCESS EXCLUSIVE MODE',
      'LOCK TABLE core.outbox IN ACCESS EXCLUSIVE MODE',
      'UPDATE core.outbox_settings SET slots = 1024',
    ]) {
      const res = await sql(delivery, `BEGIN; ${text}`);
      expect([res.code, res.message], text).toEqual(['42501', 'permission denied for schema core']);
    }
    // The delivery's role holds the lock the relay once led by, waiting for it if it must, while the
    // relay's connection is cut: the relay comes back, leads its slot again and publishes.
    const cluster = c!;
    const org = await cluster.seedOrg('Relay lock');
    const receiver = await receivers.start();
    const sub = await cluster.api(org.key, 'POST', '/webhooks', {
      destinationUrl: receiver.url,
      eventNames: ['release.created'],
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    const holder = new pg.Client({ connectionString: delivery });
    await holder.connect();
    try {
      const locked = holder.query("SELECT pg_advisory_lock(hashtext('core:outbox-relay'))");
      const cut = await sql(
        databaseUrl,
        "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'core-outbox-relay' AND datname = current_database()",
      );
      expect(cut.rows?.length, cut.message).toBeGreaterThan(0);
      await locked;
      const release = await cluster.api(org.key, 'POST', `/projects/${org.projectId}/releases`, {
        name: 'Published anyway',
        startDate: '2026-12-01',
        endDate: '2026-12-31',
      });
      expect(release.status, JSON.stringify(release.body)).toBe(201);
      const [delivered] = await receiver.waitFor(1, undefined, 30_000);
      expect(delivered.body).toMatchObject({ eventName: 'release.created', entityId: release.body.id });
    } finally {
      await holder.end();
    }
  });

  it("refuses each service's role every other service's schema", async () => {
    const tables = await sql(
      databaseUrl,
      `SELECT DISTINCT ON (schemaname) schemaname AS schema, tablename AS name FROM pg_tables
        WHERE schemaname IN ('core', 'delivery', 'evidence') AND tablename NOT LIKE 'knex%' ORDER BY schemaname, tablename`,
    );
    expect(tables.rows).toHaveLength(3);
    for (const service of SERVICES) {
      for (const { schema, name } of tables.rows as { schema: string; name: string }[]) {
        const read = await sql(urlOf(service), `SELECT * FROM "${schema}"."${name}" LIMIT 1`);
        if (schema === service) expect(read.code, `${service} on ${schema}.${name}: ${read.message}`).toBeUndefined();
        else
          expect([read.code, read.message], `${service} on ${schema}.${name}`).toEqual([
            '42501',
            `permission denied for schema ${schema}`,
          ]);
      }
    }
  });

  it("refuses every DDL to the services, in their schema and anywhere else; the migrations stay the owner's", async () => {
    for (const service of SERVICES) {
      const url = urlOf(service);
      const refused = async (text: string, message: RegExp) => {
        const res = await sql(url, text);
        expect(res.code, `${service}: ${text}`).toBe('42501');
        expect(res.message).toMatch(message);
      };
      await refused(`CREATE TABLE "${service}".intruder (id int)`, new RegExp(`permission denied for schema ${service}`));
      await refused('CREATE TABLE public.intruder (id int)', /permission denied for schema public/);
      await refused('CREATE SCHEMA intruder', /permission denied for database/);
      await refused(`ALTER TABLE "${service}".knex_migrations ADD COLUMN x int`, /must be owner of table knex_migrations/);
      await refused(`DROP TABLE "${service}".knex_migrations`, /must be owner of table knex_migrations/);
      await refused(`DELETE FROM "${service}".knex_migrations`, /permission denied for table knex_migrations/);
      await refused(
        `UPDATE "${service}".knex_migrations_lock SET is_locked = 1`,
        /permission denied for table knex_migrations_lock/,
      );
      // It can see what ran (a pod's start checks it).
      expect((await sql(url, `SELECT count(*)::int AS n FROM "${service}".knex_migrations`)).rows?.[0].n).toBeGreaterThan(0);
    }
    // The delivery's weekly partitions are made and dropped through the owner's two functions only
    // (docs/decisions-webhooks.md, "Partitioned delivery log"): what they make is the owner's.
    const delivery = urlOf('delivery');
    const made = await sql(delivery, `SELECT delivery.delivery_partition_create(current_date + 40) AS made`);
    expect(made.rows?.[0].made).toBe(true);
    const [owner] = (
      await sql(
        delivery,
        `SELECT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relname = 'deliveries_' || to_char(date_trunc('week', current_date + 40), '"p"YYYYMMDD')`,
      )
    ).rows!;
    expect(owner.owner).not.toBe(roles.delivery);
    const dropped = await sql(
      delivery,
      `SELECT delivery.delivery_partition_drop(to_char(date_trunc('week', current_date + 40), '"p"YYYYMMDD'), 0) AS kept`,
    );
    expect(dropped.message).toBeUndefined();
    expect(dropped.rows?.[0].kept).toBe(0);
    const refused = await sql(delivery, `SELECT delivery.delivery_partition_drop('knex_migrations', 0)`);
    expect(refused.message).toMatch(/not a delivery partition/);
    expect((await sql(urlOf('core'), `SELECT delivery.delivery_partition_create(current_date + 41)`)).code).toBe('42501');
  });

  it('tells a service started as more than its own role (a pod warns at start), and not one on its own role', async () => {
    const excess = async (url: string, schema: string) => {
      const db = createDb(url, { schema, poolMax: 1 });
      try {
        return await excessPrivileges(db, schema);
      } finally {
        await db.destroy();
      }
    };
    for (const service of SERVICES) expect(await excess(urlOf(service), service), service).toEqual([]);
    expect(await excess(urlOf('owner'), 'core')).toEqual(['owner of schema core', 'CREATE on the database']);
    expect(await excess(databaseUrl, 'core')).toEqual(['superuser']);
  });

  it('covers what a later migration creates, by default privileges, and an unchanged re-run keeps the grants', async () => {
    const created = await sql(
      urlOf('owner'),
      `CREATE TABLE delivery.later (id int PRIMARY KEY); CREATE SEQUENCE delivery.later_seq`,
    );
    expect(created.code, created.message).toBeUndefined();
    const used = await sql(
      urlOf('delivery'),
      `INSERT INTO delivery.later VALUES (nextval('delivery.later_seq')); UPDATE delivery.later SET id = id + 1;
       DELETE FROM delivery.later RETURNING id`,
    );
    expect(used.code, used.message).toBeUndefined();
    expect((await sql(urlOf('core'), 'SELECT * FROM delivery.later')).code).toBe('42501');
    expect((await migrateAs('delivery')).code).toBe(0);
    expect((await sql(urlOf('delivery'), 'SELECT count(*) FROM delivery.deliveries')).code).toBeUndefined();
  });

  it('refuses a migration Job that names no runtime role (outside development) or a role that does not exist', async () => {
    const production = await runEntry('core', ['migrate'], {
      DATABASE_URL: urlOf('owner'),
      CLUSTER_ENV: 'production',
    });
    expect(production.code).not.toBe(0);
    expect(production.output).toMatch(/DATABASE_RUNTIME_ROLE is required/);
    const missing = await migrateAs('core', { DATABASE_RUNTIME_ROLE: `${roles.core}_gone` });
    expect(missing.code).not.toBe(0);
    expect(missing.output).toMatch(new RegExp(`role "${roles.core}_gone" does not exist; create it first`));
    const malformed = await migrateAs('core', { DATABASE_RUNTIME_ROLE: 'Core; DROP' });
    expect(malformed.code).not.toBe(0);
    expect(malformed.output).toMatch(/DATABASE_RUNTIME_ROLE: "Core; DROP" is not a role name/);
  });
});
