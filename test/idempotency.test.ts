import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, createClient } from '@connectrpc/connect';
import { readGatewayConfig, startGateway } from '@cluster/gateway';
import { claimsOf } from '@cluster/platform';
import { AuthService, EntryService } from '@cluster/proto';
import { startTestCluster, type ApiResponse, type SeededOrg, type TestCluster } from './support/cluster.ts';
import { until } from './support/poll.ts';
import { createReceivers, verifyStandardSignature } from './support/receiver.ts';
import { transportAs } from './support/service-calls.ts';

// Idempotency-Key as integrators rely on it (docs/decisions-api.md, "How a key holds under every
// fault"): the backend that owns a write records the key in the write's own transaction, so a retry
// gets the first outcome whatever happened to the first answer, copies in flight wait for each other,
// and nothing is stored in the clear that a secret shown once would leak from.

let c: TestCluster;
let org: SeededOrg;
let db: pg.Client;
const receivers = createReceivers();
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  c = await startTestCluster({ env: { WEBHOOK_POLL_MS: '100' } });
  org = await c.seedOrg('Idempotency Org');
  db = new pg.Client({ connectionString: c.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
  await receivers.closeAll();
  await db?.end();
  await c?.stop();
});

const post = (path: string, body: unknown, key: string, apiKey = org.key) =>
  c.api(apiKey, 'POST', path, body, { 'idempotency-key': key });
const entriesTitled = async (title: string) =>
  (await db.query('SELECT id FROM core.entries WHERE title = $1', [title])).rows.map((r: { id: string }) => r.id);

/** `replay` is `first` answered again: the same status and body, marked as a replay. */
function expectReplayOf(first: ApiResponse, replay: ApiResponse): void {
  expect(replay.status).toBe(first.status);
  expect(replay.body).toEqual(first.body);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
}

/** A first attempt holding `key` inside its open transaction, as a backend mid-write does; ROLLBACK frees it. */
async function holdKey(key: string): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: c.databaseUrl });
  await holder.connect();
  cleanup.push(() => holder.end());
  await holder.query('BEGIN');
  await holder.query(
    `INSERT INTO core.idempotency_records ("apiKeyId", key, fingerprint, operation, "expiresAt")
     VALUES ($1, $2, 'whatever', 'x', now() + interval '1 day')`,
    [org.keyId, key],
  );
  return holder;
}

describe('Idempotency-Key', () => {
  it('replays the same status and body with Idempotent-Replayed: true, creating one project', async () => {
    const body = { name: 'idem', description: 'once' };
    const first = await post('/projects', body, 'k-1');
    const second = await post('/projects', body, 'k-1');
    expect(first.status).toBe(201);
    expectReplayOf(first, second);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM core.projects WHERE name = 'idem'`);
    expect(rows[0].n).toBe(1);
  });

  it('the key is recorded by the write’s own transaction, in the schema of the backend that owns it', async () => {
    const created = await post(
      `/projects/${org.projectId}/entries`,
      { type: 'feedback', title: 'recorded', description: 'd' },
      'k-rec',
    );
    expect(created.status).toBe(201);
    const { rows } = await db.query(
      `SELECT k.operation, k.outcome, extract(epoch FROM k."expiresAt" - k."createdAt")::int AS ttl, k.xmin::text = e.xmin::text AS same_transaction
         FROM core.idempotency_records k, core.entries e WHERE k.key = 'k-rec' AND k."apiKeyId" = $1 AND e.id = $2`,
      [org.keyId, created.body.id],
    );
    // xmin: the id of the transaction that wrote a row. One transaction wrote both.
    expect(rows).toEqual([
      {
        operation: 'cluster.core.v1.EntryService/CreateEntry',
        outcome: 'answer',
        ttl: 24 * 3600,
        same_transaction: true,
      },
    ]);
  });

  it('the same key with another body is 422 idempotency_key_reused', async () => {
    await post('/projects', { name: 'a', description: '' }, 'k-2');
    const res = await post('/projects', { name: 'b', description: '' }, 'k-2');
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('idempotency_key_reused');
  });

  it('copies sent at once: one runs, the others wait for it and answer its result (no 409)', async () => {
    const body = { type: 'feedback', title: `race-${Date.now()}`, description: 'd' };
    const results = await Promise.all(Array.from({ length: 8 }, () => post(`/projects/${org.projectId}/entries`, body, 'k-3')));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(7);
    expect(await entriesTitled(body.title)).toHaveLength(1);
  });

  it('a copy in flight that rolls back leaves the key free: the waiting retry runs and creates', async () => {
    const title = `rolled-back-${Date.now()}`;
    const body = JSON.stringify({ type: 'feedback', title, description: 'd' });
    const holder = await holdKey('k-held');
    const started = Date.now();
    const retry = c.api(org.key, 'POST', `/projects/${org.projectId}/entries`, body, { 'idempotency-key': 'k-held' });
    await new Promise((r) => setTimeout(r, 1000));
    await holder.query('ROLLBACK');
    const res = await retry;
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(await entriesTitled(title)).toEqual([res.body.id]);
  });

  it('answers 409 idempotency_key_in_use only when the first is still running as the retry’s deadline nears', async () => {
    const holder = await holdKey('k-stuck');
    const res = await post('/projects', { name: 'stuck', description: '' }, 'k-stuck');
    await holder.query('ROLLBACK');
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('idempotency_key_in_use');
  }, 30_000);

  it('keys are per API key, and a bad key value is 400', async () => {
    const { key } = await c.admin.createKey({ user: org.adminId, scope: 'organization' });
    const a = await post('/projects', { name: 'a', description: '' }, 'k-1', key);
    expect(a.status).toBe(201);
    expect(a.headers.get('idempotent-replayed')).toBeNull();
    const bad = await post('/projects', { name: 'a', description: '' }, 'x'.repeat(256), key);
    expect(bad.status).toBe(400);
  });

  it('a backend’s refusal is stored and replayed; a request the gateway refused before any call is not', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const first = await post(`/projects/${missing}/entries`, { type: 'feedback', title: 'nowhere', description: 'd' }, 'k-404');
    const second = await post(`/projects/${missing}/entries`, { type: 'feedback', title: 'nowhere', description: 'd' }, 'k-404');
    expect(first.status).toBe(404);
    expect(second.status).toBe(404);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const invalid = await post('/projects', { name: 'v' }, 'k-400');
    const again = await post('/projects', { name: 'v' }, 'k-400');
    expect([invalid.status, again.status]).toEqual([400, 400]);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const { rows } = await db.query(`SELECT key FROM core.idempotency_records WHERE key IN ('k-404', 'k-400')`);
    expect(rows.map((r: { key: string }) => r.key)).toEqual(['k-404']);
  });

  it('an RPC that writes several times (bulk invite) commits all of it once under the key, and answers the same results', async () => {
    const tag = Date.now();
    const body = {
      invites: [
        { email: `bulk-a-${tag}@example.test`, name: 'A' },
        { email: 'broken', name: 'Broken' },
        { email: `bulk-b-${tag}@example.test`, name: 'B' },
      ],
    };
    const first = await post('/users/bulk-invite', body, 'k-bulk');
    const again = await post('/users/bulk-invite', body, 'k-bulk');
    expect(first.status).toBe(200);
    expect(first.body.successCount).toBe(2);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM core.users WHERE email LIKE $1`, [
      `bulk-%-${tag}@example.test`,
    ]);
    expect(rows[0].n).toBe(2);
  });

  it('a call whose caller’s deadline has passed is refused before any work (nothing is written)', async () => {
    const core = `http://127.0.0.1:${c.ports.core}`;
    const actor = claimsOf(
      (await createClient(AuthService, transportAs('gateway', 'core', core)).authenticate({ key: org.key, requestId: 'r' }))
        .actor!,
    );
    const entries = createClient(EntryService, transportAs('gateway', 'core', core));
    const title = `late-${Date.now()}`;
    const create = (deadline: number) =>
      entries.createEntry(
        { actor: { ...actor, requestId: 'r' }, parentId: org.projectId, body: { type: 'feedback', title, description: 'd' } },
        { headers: { 'cluster-deadline': String(deadline) } },
      );
    // As a backend frozen past its caller's deadline finds the call once it runs again.
    await expect(create(Date.now() - 1)).rejects.toMatchObject({ code: Code.DeadlineExceeded });
    expect(await entriesTitled(title)).toEqual([]);
    // The same call within its deadline writes.
    await create(Date.now() + 10_000);
    expect(await entriesTitled(title)).toHaveLength(1);
  });

  it('a webhook’s answer (its secret, shown once) is stored sealed, and replayed with the same secret', async () => {
    const receiver = await receivers.start();
    const body = { destinationUrl: receiver.url, eventNames: ['entry.created'] };
    const first = await post('/webhooks', body, 'k-hook');
    const replay = await post('/webhooks', body, 'k-hook');
    expect(first.status).toBe(201);
    expectReplayOf(first, replay);
    const { rows } = await db.query(`SELECT answer FROM delivery.idempotency_records WHERE key = 'k-hook'`);
    expect(rows).toHaveLength(1);
    const secretBytes = Buffer.from(first.body.hmacSecret.replace(/^whsec_/, ''), 'base64');
    expect(rows[0].answer).not.toContain(first.body.id);
    expect(Buffer.from(rows[0].answer, 'base64').includes(secretBytes)).toBe(false);
    expect((await c.api(org.key, 'GET', '/webhooks?pageSize=100')).body.data).toHaveLength(1);
  });
});

/**
 * A TCP proxy in front of the core that forwards every request and, while `loseAnswers` is set,
 * drops what the core answers: the write commits, its answer never reaches the gateway.
 */
async function answerLosingProxy(port: number) {
  let loseAnswers = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port });
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk) => {
      if (!loseAnswers) client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    set loseAnswers(on: boolean) {
      loseAnswers = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('the window between commit and answer', () => {
  it('a write whose answer was lost after its commit: 503, then the retry gets the first answer; one entry, one webhook', async () => {
    const receiver = await receivers.start();
    const hook = await c.api(org.key, 'POST', '/webhooks', { destinationUrl: receiver.url, eventNames: ['entry.created'] });
    expect(hook.status).toBe(201);
    const proxy = await answerLosingProxy(c.ports.core);
    cleanup.push(() => proxy.close());
    const url = (p: number) => `http://127.0.0.1:${p}`;
    const gateway = await startGateway({
      ...readGatewayConfig(),
      port: 0,
      metricsPort: 0,
      backendTimeoutMs: 1500,
      services: { core: url(proxy.port), delivery: url(c.ports.delivery), evidence: url(c.ports.evidence) },
    });
    cleanup.push(() => gateway.shutdown.run('test'));
    const title = `lost-answer-${Date.now()}`;
    const send = () =>
      fetch(`${url(gateway.port)}/api/v1/projects/${org.projectId}/entries`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json', 'idempotency-key': 'k-lost' },
        body: JSON.stringify({ type: 'feedback', title, description: 'd' }),
      });
    // The key is checked (cached) first, so that the lost answer is the write's.
    expect((await fetch(`${url(gateway.port)}/api/v1/me`, { headers: { authorization: `Bearer ${org.key}` } })).status).toBe(200);

    proxy.loseAnswers = true;
    const lost = await send();
    expect(lost.status).toBe(503);
    const stored = await until(
      () => entriesTitled(title),
      (ids) => ids.length > 0,
      10_000,
    );
    expect(stored).toHaveLength(1);

    proxy.loseAnswers = false;
    const retry = await send();
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await retry.json()).id).toBe(stored[0]);
    expect(await entriesTitled(title)).toEqual(stored);

    const arrived = await until(
      () => Promise.resolve(receiver.received.filter((r) => r.body?.entityId === stored[0])),
      (list) => list.length > 0,
      30_000,
    );
    await new Promise((r) => setTimeout(r, 1500)); // a second delivery would come now
    expect(receiver.received.filter((r) => r.body?.entityId === stored[0])).toHaveLength(1);
    expect(verifyStandardSignature(hook.body.hmacSecret, arrived[0])).toBe(true);
  }, 60_000);
});
