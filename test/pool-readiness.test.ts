import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, ensureDatabase, pingDb, pingPool, type Knex } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl } from './support/cluster.ts';

// Issue 38, finding 4: readiness goes through the serving pool, with no connection of its own, so a
// pool whose every connection is busy must still count as ready while its server answers (a load peak
// must not make every replica unready), and a pool whose connection broke must ask the server again.
// Real Postgres; the pool of one connection is kept busy by a real statement.

const databaseUrl = freshDatabaseUrl('poolready');
let db: Knex;

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  db = createDb(databaseUrl, { schema: 'public', poolMax: 1, timeouts: { statementTimeoutMs: 3000, acquireTimeoutMs: 1000 } });
});
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(databaseUrl);
});

describe('readiness of a serving pool (pingPool)', () => {
  it('is ready at once while every connection is busy, when the server answered within the window', async () => {
    await db.raw('SELECT 1'); // an answer
    const busy = db.raw('SELECT pg_sleep(1.5)'); // the pool's only connection, taken
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    expect(await pingPool(db, 3000)).toBe(true);
    expect(performance.now() - t0).toBeLessThan(50); // no query queued behind the busy connection
    // Without the window the probe queues for the connection: what made every replica unready at a peak.
    const queued = performance.now();
    const viaPool = pingDb(db);
    await busy;
    expect(await viaPool).toBe(true);
    expect(performance.now() - queued).toBeGreaterThan(1000);
  });

  it('asks the server again once a connection of the pool broke, or once the window passed', async () => {
    let probes = 0;
    db.on('query', (q: { sql: string }) => {
      if (q.sql === 'SELECT 1') probes++;
    });
    await db.raw('SELECT 2');
    expect(await pingPool(db, 60_000)).toBe(true);
    expect(probes).toBe(0); // a recent answer: no query
    // A connection the server killed: the next probe is a query, not the last answer.
    await db.raw('SELECT pg_terminate_backend(pg_backend_pid())').catch(() => {});
    await new Promise((r) => setTimeout(r, 100));
    expect(await pingPool(db, 60_000)).toBe(true);
    expect(probes).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(await pingPool(db, 200)).toBe(true); // the window passed: a query again
    expect(probes).toBe(2);
  });
});
