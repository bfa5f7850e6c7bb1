import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { sleep, until } from '../support/poll.ts';
import { verifyStandardSignature } from '../support/receiver.ts';
import { startProcessCluster, type ProcessCluster } from '../support/process-cluster.ts';
import { apiOf, createProject, subscriber, type Subscriber } from './api.ts';
import { privatePostgres, type PrivatePostgres } from './support.ts';

// Exactly once under faults (issue 35; docs/decisions-api.md, "How a key holds under every fault"),
// checked as integrators with a flaky network would: clients create entries, each under its own
// Idempotency-Key, and retry every 5xx, 409 and network error under that key, while Postgres is frozen
// (SIGSTOP to the server and its backends) with commits in flight, and while the core is frozen past
// the gateway's deadline. Each key must be stored exactly once, each write must end 201 within seconds
// of the fault's end (no minute of 409), and each entry's webhook must arrive once per subscription
// (as one delivery id: a receiver de-duplicates an attempt sent again).

const STATEMENT_MS = 2000;
/** The gateway's deadline on a backend call: the core's freezes last longer. */
const BACKEND_MS = 3000;
const WRITERS = 6;
/** A write retried for longer than this has failed the test. */
const GIVE_UP_MS = 60_000;

let pgServer: PrivatePostgres;
let cluster: ProcessCluster;
let db: pg.Client;
let projectId: string;
let key: string;
let subscribers: Subscriber[];

beforeAll(async () => {
  pgServer = await privatePostgres();
  await pgServer.start();
  cluster = await startProcessCluster('idemfault', {
    postgresUrl: pgServer.url,
    env: {
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: 'true',
      WEBHOOK_RETRY_BASE_MS: '200',
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
      DB_ACQUIRE_TIMEOUT_MS: '2000',
      BACKEND_TIMEOUT_MS: String(BACKEND_MS),
      // The writers go as fast as the cluster answers: the key's rate limit is not what is tested.
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
  });
  ({ key } = await cluster.newOrg('Exactly Once Org'));
  const api = apiOf(cluster.baseUrl, key);
  projectId = await createProject(api, 'Exactly once');
  subscribers = [await subscriber(api, ['entry.created']), await subscriber(api, ['entry.created'])];
  db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
}, 240_000);

beforeEach(() => onTestFailed(() => console.error(cluster.tails())));

afterAll(async () => {
  pgServer?.thaw();
  cluster?.core.thaw();
  await db?.end().catch(() => {});
  for (const s of subscribers ?? []) await s.receiver.close();
  await cluster?.stop();
  await pgServer?.stop();
  pgServer?.remove();
});

/** One write as its client saw it, over all its attempts under one key. */
interface Write {
  key: string;
  statuses: number[];
  /** Answered 201 with Idempotent-Replayed: true: an earlier attempt had committed. */
  replayed: boolean;
  entryId?: string;
  endedAt: number;
}

/** Writers creating entries, each write under its own key and retried under it until 201 (or a 4xx). */
function startWriters(tag: string) {
  const writes: Write[] = [];
  let stopped = false;
  const once = async (n: number): Promise<Write> => {
    const write: Write = { key: `${tag}-${n}-${randomUUID()}`, statuses: [], replayed: false, endedAt: 0 };
    const started = Date.now();
    for (let attempt = 0; Date.now() - started < GIVE_UP_MS; attempt++) {
      let status = 0;
      try {
        const res = await fetch(`${cluster.baseUrl}/projects/${projectId}/entries`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': write.key },
          // The title names the key, so that the database tells a key stored twice.
          body: JSON.stringify({ type: 'feedback', title: write.key, description: 'written under faults' }),
          signal: AbortSignal.timeout(BACKEND_MS + 5000),
        });
        status = res.status;
        if (status === 201) {
          write.entryId = ((await res.json()) as { id: string }).id;
          write.replayed = res.headers.get('idempotent-replayed') === 'true';
        } else await res.arrayBuffer();
      } catch {
        // a network error or a timeout: status 0, retried
      }
      write.statuses.push(status);
      if (status === 201 || (status >= 400 && status < 500 && status !== 409 && status !== 429)) break;
      await sleep(Math.min(100 * 2 ** attempt, 1000));
    }
    write.endedAt = Date.now();
    return write;
  };
  const loops = Array.from({ length: WRITERS }, async (_, w) => {
    for (let n = 0; !stopped; n++) writes.push(await once(w * 100_000 + n));
  });
  return {
    writes,
    async stop(): Promise<Write[]> {
      stopped = true;
      await Promise.all(loops);
      return writes;
    },
  };
}

/** Freezes `what` `times` times for `ms`, with a second between; the end of each freeze. */
async function freezes(what: { freeze(): void; thaw(): void }, times: number, ms: number): Promise<number[]> {
  const ends: number[] = [];
  for (let i = 0; i < times; i++) {
    await sleep(1000);
    what.freeze();
    await sleep(ms);
    what.thaw();
    ends.push(Date.now());
  }
  return ends;
}

/** Every write ended 201, each key is stored once, and each entry's webhook arrives once per subscription. */
async function expectExactlyOnceUnder(writes: Write[], thaws: number[]): Promise<void> {
  const failed = writes.filter((w) => w.statuses.at(-1) !== 201);
  expect(failed.map((w) => `${w.key}: ${w.statuses.join(',')}`)).toEqual([]);
  const faulted = writes.filter((w) => w.statuses.length > 1);
  // The faults happened to writes (or the test proved nothing), and each such write ended 201 soon after its fault.
  expect(faulted.length).toBeGreaterThan(0);
  for (const w of faulted) {
    const lastThaw = Math.max(...thaws.filter((t) => t <= w.endedAt), 0);
    expect(w.endedAt - lastThaw, `${w.key}: ${w.statuses.join(',')}`).toBeLessThan(15_000);
  }
  const { rows } = await db.query<{ title: string; n: number }>(
    'SELECT title, count(*)::int AS n FROM core.entries WHERE "projectId" = $1 GROUP BY title',
    [projectId],
  );
  const stored = new Map(rows.map((r) => [r.title, r.n]));
  expect(writes.filter((w) => stored.get(w.key) !== 1).map((w) => `${w.key}: ${stored.get(w.key) ?? 0}`)).toEqual([]);
  await expectOnePerSubscription(writes.map((w) => w.entryId!));
  console.info(
    `[exactly once] ${writes.length} writes, ${faulted.length} retried after a fault, ` +
      `${writes.filter((w) => w.replayed).length} answered by a replay of a committed attempt, ` +
      `${writes.filter((w) => w.statuses.includes(409)).length} saw 409`,
  );
}

/**
 * Each entry's webhook arrives at each subscription as one delivery: delivery is at-least-once, so
 * an attempt whose outcome Postgres could not record while frozen is sent again, but under the same
 * delivery id (X-Service-Delivery-Id), which a receiver de-duplicates; a second delivery id for one
 * entry would be a second write's event.
 */
async function expectOnePerSubscription(entryIds: string[]): Promise<void> {
  const deliveryIds = (s: Subscriber) => {
    const byEntry = new Map<string, Set<string>>();
    for (const r of s.receiver.received) {
      if (r.body?.eventName !== 'entry.created' || !verifyStandardSignature(s.secret, r)) continue;
      const id = String(r.body.entityId);
      byEntry.set(id, (byEntry.get(id) ?? new Set()).add(String(r.headers['x-service-delivery-id'])));
    }
    return byEntry;
  };
  await until(
    async () => subscribers.every((s) => entryIds.every((id) => deliveryIds(s).has(id))),
    (all) => all,
    90_000,
  );
  await sleep(2000); // a second delivery would come now
  for (const s of subscribers) {
    const byEntry = deliveryIds(s);
    expect(
      entryIds.map((id) => byEntry.get(id)?.size ?? 0),
      `delivery ids per entry at subscription ${s.id}`,
    ).toEqual(entryIds.map(() => 1));
  }
}

describe('fault: exactly once under an Idempotency-Key', () => {
  it('Postgres frozen three times for 4 s while clients write and retry: each key stored once, webhooks once', async () => {
    const writers = startWriters('pg');
    await sleep(1500);
    const thaws = await freezes(pgServer, 3, 4000);
    await sleep(2000);
    await expectExactlyOnceUnder(await writers.stop(), thaws);
  }, 180_000);

  it('the core frozen twice past the gateway’s deadline: nothing commits after its caller gave up, each key stored once', async () => {
    const writers = startWriters('core');
    await sleep(1500);
    const thaws = await freezes(cluster.core, 2, BACKEND_MS + 2000);
    await sleep(2000);
    const writes = await writers.stop();
    await expectExactlyOnceUnder(writes, thaws);
    // The frozen core's calls were answered 503 (or timed out) and then retried: none of them left a second entry.
    expect(writes.some((w) => w.statuses.some((s) => s === 503 || s === 0))).toBe(true);
  }, 180_000);
});
