import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { createDb, type Knex } from '@cluster/db';
import { requireEnv } from '../support/cluster.ts';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { startProcessCluster, type ProcessCluster } from '../support/process-cluster.ts';
import { apiOf, createEntry, createProject, expectExactlyOnce, readyz, subscriber, type Api, type Subscriber } from './api.ts';

// Issue 38, finding 5: the services through a real PgBouncer (Debian's package, started by the test
// with its defaults: no ignore_startup_parameters) in session mode, as docs/deploy.md ("PgBouncer")
// tells an operator to run it. PgBouncer refuses a startup parameter it does not track, such as
// statement_timeout; the pools and the dedicated connections set their timeouts with SET after
// connecting instead. Core, delivery and the gateway run through it: migrations, the serving pools,
// the outbox relays' leader connections (advisory lock, LISTEN) and delivery's LISTEN connection.

let bouncer: PgBouncer;
let cluster: ProcessCluster;
let api: Api;
let subscribers: Subscriber[] = [];
let pool: Knex | undefined;

beforeAll(async () => {
  bouncer = await startPgBouncer(requireEnv().url, { poolMode: 'session' });
  cluster = await startProcessCluster('bouncer', {
    postgresUrl: bouncer.via(requireEnv().url),
    env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true', WEBHOOK_RETRY_BASE_MS: '200', DB_STATEMENT_TIMEOUT_MS: '4000' },
  });
  const { key } = await cluster.newOrg('PgBouncer Org');
  api = apiOf(cluster.baseUrl, key);
}, 240_000);

beforeEach(() => onTestFailed(() => console.error(`${cluster?.tails()}\n---- pgbouncer\n${bouncer?.log()}`)));

afterAll(async () => {
  await pool?.destroy();
  for (const s of subscribers) await s.receiver.close();
  await cluster?.stop();
  await bouncer?.stop();
});

describe('through PgBouncer (session mode, its default configuration)', () => {
  it('refuses statement_timeout as a startup parameter, as the issue found', async () => {
    const client = new pg.Client({ connectionString: cluster.databaseUrl, statement_timeout: 1000 });
    const refused = await client.connect().then(
      () => undefined,
      (err: Error) => err.message,
    );
    await client.end().catch(() => {});
    expect(refused).toMatch(/unsupported startup parameter/);
  });

  it('a serving pool gets its timeouts by SET, and a write goes through', async () => {
    pool = createDb(cluster.databaseUrl, {
      schema: 'core',
      poolMax: 2,
      timeouts: { statementTimeoutMs: 1500, acquireTimeoutMs: 2000 },
    });
    const { rows } = await pool.raw<{ rows: { statement_timeout: string }[] }>('SHOW statement_timeout');
    expect(rows[0].statement_timeout).toBe('1500ms');
    // The bound holds: a statement past it is cancelled by the server, through PgBouncer.
    await expect(pool.raw('SELECT pg_sleep(3)')).rejects.toMatchObject({ code: '57014' });
    const { rows: after } = await pool.raw<{ rows: { one: number }[] }>('SELECT 1 AS one');
    expect(after[0].one).toBe(1);
  });

  it('the services serve through it: ready, a write answered 201, its webhook delivered by the relays and the delivery loop', async () => {
    for (const port of [cluster.core.port, cluster.delivery.port]) {
      expect((await readyz(port)).body).toMatchObject({ ready: true, checks: { postgres: true } });
    }
    const projectId = await createProject(api, 'Through PgBouncer');
    subscribers = [await subscriber(api, ['entry.created'])];
    const ids = [await createEntry(api, projectId, 'one'), await createEntry(api, projectId, 'two')];
    await expectExactlyOnce(subscribers, ids, 60_000);
    // The dedicated connections came through PgBouncer too (it names the client's application on the server).
    const server = new pg.Client({ connectionString: requireEnv().url });
    await server.connect();
    try {
      const { rows } = await server.query<{ application_name: string }>(
        'SELECT DISTINCT application_name FROM pg_stat_activity WHERE datname = $1',
        [new URL(cluster.databaseUrl).pathname.slice(1)],
      );
      expect(rows.map((r) => r.application_name)).toEqual(
        expect.arrayContaining(['core', 'delivery', 'core-outbox-relay', 'delivery-outbox-relay', 'delivery-due-listener']),
      );
    } finally {
      await server.end();
    }
    expect(bouncer.log()).not.toMatch(/unsupported startup parameter: (?!statement_timeout)/);
  }, 120_000);
});
