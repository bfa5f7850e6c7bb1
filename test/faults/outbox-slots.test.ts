import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { createDb, ensureDatabase, type Knex } from '@cluster/db';
import { commitWrite } from '@cluster/outbox';
import { createEventLog, dropDatabase, freshDatabaseUrl, requireEnv, type EventLog } from '../support/cluster.ts';
import { waitUntil } from '../support/processes.ts';
import { serviceProcess, type ServiceProcess } from './support.ts';

// The sharded outbox relay (docs/decisions.md, "Transactional outbox"), with real processes: two
// cores, each a relay, lead different slots of one outbox and publish in parallel; a leader killed
// with SIGKILL mid-stream loses nothing and reorders nothing; a change of the slot count with rows
// pending keeps every entity's order. Real Postgres, real Kafka; order is read on the topic.

const { brokers } = requireEnv();
const databaseUrl = freshDatabaseUrl('slots');
const prefix = `s${randomBytes(4).toString('hex')}.`;
const env = (slots: number) => ({
  DATABASE_URL: databaseUrl,
  KAFKA_BROKERS: brokers.join(','),
  KAFKA_TOPIC_PREFIX: prefix,
  OUTBOX_RELAY_SLOTS: String(slots),
  OUTBOX_RELAY_IDLE_MS: '100',
  OUTBOX_RELAY_LEASE_MS: '4000',
});
let db: Knex;
let log: EventLog;
let cores: ServiceProcess[] = [];
let orgId: string;

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  cores = [await serviceProcess('core', env(4)), await serviceProcess('core', env(4))];
  // The first migrates; the second finds the schema current.
  for (const core of cores) await core.start();
  db = createDb(databaseUrl, { schema: 'core', poolMax: 4 });
  [{ id: orgId }] = await db('organizations').insert({ name: 'slots' }).returning('id');
  log = await createEventLog(brokers, `${prefix}cluster.domain-events.v1`);
}, 180_000);

afterAll(async () => {
  for (const core of cores) await core.stop().catch(() => {});
  await log?.stop();
  await db?.destroy();
  await dropDatabase(databaseUrl);
});

/** `rounds` events for each entity, round by round (one transaction a round): event n of each entity carries n. */
async function enqueue(entities: string[], rounds: number, from = 0): Promise<void> {
  for (let n = from; n < from + rounds; n++) {
    await db.transaction((trx) =>
      commitWrite(trx, 'core', {
        rows: [],
        events: entities.map((entityId) => ({
          eventName: 'project.updated',
          entityType: 'project',
          entityId,
          organizationId: orgId,
          actorUserId: null,
          payload: { n },
        })),
      }),
    );
  }
}

/** Waits until every event of `entities` is on the topic; then each entity's `n`s in the order they first appeared. */
async function firstSeen(entities: string[], perEntity: number, timeoutMs = 90_000): Promise<Map<string, number[]>> {
  const wanted = new Set(entities);
  const order = () => {
    const byEntity = new Map<string, number[]>(entities.map((e) => [e, []]));
    const ids = new Set<string>();
    for (const e of log.all()) {
      if (!wanted.has(e.entityId) || ids.has(e.id)) continue; // a republished event counts where it first appeared
      ids.add(e.id);
      byEntity.get(e.entityId)!.push((e.payload as { n: number }).n);
    }
    return byEntity;
  };
  await waitUntil(
    `${entities.length * perEntity} events on the topic`,
    async () => [...order().values()].every((ns) => ns.length >= perEntity),
    timeoutMs,
  );
  return order();
}

const inOrder = (perEntity: number, from = 0) => Array.from({ length: perEntity }, (_, i) => from + i);

/** A core's `core_outbox_published_total` and `core_outbox_slots_led`, from its /metrics. */
async function relayMetrics(core: ServiceProcess): Promise<{ published: number; led: number }> {
  const text = await (await fetch(`http://127.0.0.1:${core.port}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { published: value('core_outbox_published_total'), led: value('core_outbox_slots_led') };
}

/** The live relays' leases: holder -> slots. */
async function leases(): Promise<Map<string, number[]>> {
  const { rows } = await db.raw<{ rows: { holder: string; slot: number }[] }>(
    `SELECT l.holder, l.slot FROM core.outbox_leases l
       JOIN core.outbox_relays r ON r.holder = l.holder
       JOIN pg_stat_activity a ON a.pid = r.pid AND a.backend_start = r."backendStart"
      WHERE l."expiresAt" > now() ORDER BY l.slot`,
  );
  const by = new Map<string, number[]>();
  for (const { holder, slot } of rows) by.set(holder, [...(by.get(holder) ?? []), slot]);
  return by;
}

const outboxCount = async () => Number((await db('outbox').count({ n: '*' }))[0].n);

describe('the sharded outbox relay, two core processes', () => {
  it('splits the slots between the two relays, which publish in parallel, each entity in order', async () => {
    await waitUntil(
      'two relays with two slots each',
      async () => {
        const held = [...(await leases()).values()];
        return held.length === 2 && held.every((slots) => slots.length === 2);
      },
      30_000,
    );
    const before = await Promise.all(cores.map(relayMetrics));
    expect(before.map((m) => m.led)).toEqual([2, 2]);
    const entities = Array.from({ length: 200 }, () => randomUUID());
    await enqueue(entities, 10);
    const order = await firstSeen(entities, 10);
    for (const [entity, ns] of order) expect(ns, entity).toEqual(inOrder(10));
    await waitUntil('the outbox empty', async () => (await outboxCount()) === 0, 20_000);
    const after = await Promise.all(cores.map(relayMetrics));
    const published = after.map((m, i) => m.published - before[i].published);
    // 200 entities hash into the four slots, two led by each relay: both published, together everything.
    expect(
      published.every((n) => n > 0),
      `published per relay: ${published.join(', ')}`,
    ).toBe(true);
    expect(published.reduce((a, b) => a + b)).toBeGreaterThanOrEqual(2000);
  });

  it('loses nothing and reorders nothing when a slot leader is killed with SIGKILL mid-stream', async () => {
    const [victim, survivor] = cores;
    expect((await relayMetrics(victim)).led).toBe(2);
    const entities = Array.from({ length: 300 }, () => randomUUID());
    const start = log.all().length;
    const writing = enqueue(entities, 20);
    // Both relays are publishing the 6,000 events as they are written: kill one of them in the stream.
    await waitUntil('publishing under way', async () => log.all().length - start >= 600, 60_000);
    const survivorBefore = (await relayMetrics(survivor)).published;
    await victim.kill9();
    const left = await outboxCount();
    await writing;
    const order = await firstSeen(entities, 20);
    for (const [entity, ns] of order) expect(ns, entity).toEqual(inOrder(20));
    await waitUntil('the outbox empty', async () => (await outboxCount()) === 0, 30_000);
    // The survivor took the dead relay's slots (its connection's backend ended with it) and drained them.
    expect([...(await leases()).values()]).toEqual([[0, 1, 2, 3]]);
    expect(left).toBeGreaterThan(0);
    expect((await relayMetrics(survivor)).published - survivorBefore).toBeGreaterThanOrEqual(left);
    console.log(`outbox slots fault: 6000 events, ${left} rows left at SIGKILL, 0 lost, per-entity order kept`);
    await victim.start();
    await waitUntil(
      'the restarted relay back with its share',
      async () => [...(await leases()).values()].map((s) => s.length).join() === '2,2',
      30_000,
    );
  }, 180_000);

  it('keeps each entity in order across a change of the slot count with rows pending in the old slots', async () => {
    for (const core of cores) await core.stop();
    expect((await db('outbox_settings').first()).slots).toBe(4);
    // Written under 4 slots, nothing relaying: they wait.
    const entities = Array.from({ length: 200 }, () => randomUUID());
    await enqueue(entities, 5);
    // What a relay started with OUTBOX_RELAY_SLOTS=2 does at its first renewal; later rows hash into 2 slots.
    await db('outbox_settings').update({ slots: 2 });
    await enqueue(entities, 5, 5);
    const { rows: split } = await db.raw<{ rows: { n: number }[] }>(
      'SELECT count(*)::int AS n FROM (SELECT key FROM core.outbox GROUP BY key HAVING count(DISTINCT slot) > 1) s',
    );
    // Entities whose hash differs modulo 4 and 2 (about half) have older rows in slot 2 or 3, newer in 0 or 1.
    expect(split[0].n).toBeGreaterThan(50);
    cores = [await serviceProcess('core', env(2)), await serviceProcess('core', env(2))];
    for (const core of cores) await core.start();
    const order = await firstSeen(entities, 10);
    for (const [entity, ns] of order) expect(ns, entity).toEqual(inOrder(10));
    await waitUntil('the outbox empty', async () => (await outboxCount()) === 0, 30_000);
    expect((await db('outbox_settings').first()).slots).toBe(2);
    // The old slots drained, the relays lead the two slots left, one each.
    await waitUntil('one slot each', async () => [...(await leases()).values()].map((s) => s.length).join() === '1,1', 30_000);
  }, 180_000);
});
