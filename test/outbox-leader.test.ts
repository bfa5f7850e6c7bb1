import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { createDb, ensureDatabase, type Knex } from '@cluster/db';
import { createKafka, createProducer, ensureTopics, topicNames } from '@cluster/kafka';
import { addOutboxSlots, createOutboxRelay, createOutboxTable, commitWrite, type OutboxRelay } from '@cluster/outbox';
import { createLogger, createMetrics, type Metrics } from '@cluster/platform';
import { createEventLog, dropDatabase, freshDatabaseUrl, requireEnv, type EventLog } from './support/cluster.ts';

// Two relays on one outbox of one slot, as two replicas of a service run them: one leads (the
// slot's lease row, tied to its own connection) and publishes everything, in order; when it stops,
// the other takes over. Several slots: test/faults/outbox-slots.test.ts.
const SCHEMA = 'relaytest';
const { brokers } = requireEnv();
const databaseUrl = freshDatabaseUrl('leader');
const topicPrefix = `l${randomBytes(4).toString('hex')}.`;
let db: Knex;
let log: EventLog;
const relays: { relay: OutboxRelay; metrics: Metrics; stopped: boolean }[] = [];

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  db = createDb(databaseUrl, { schema: SCHEMA, poolMax: 4 });
  await db.raw(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
  await createOutboxTable(db, SCHEMA);
  await addOutboxSlots(db, SCHEMA);
  const kafka = createKafka({ brokers, clientId: 'leader-test' });
  await ensureTopics(kafka, [{ topic: topicNames(topicPrefix).domainEvents, numPartitions: 3 }]);
  log = await createEventLog(brokers, topicNames(topicPrefix).domainEvents);
  for (let i = 0; i < 2; i++) {
    const metrics = createMetrics(`relay${i}`);
    const relay = createOutboxRelay({
      db,
      schema: SCHEMA,
      databaseUrl,
      newProducer: () => createProducer(kafka),
      logger: createLogger('test', 'silent'),
      metrics,
      idleMs: 200,
      topicPrefix,
    });
    relay.start();
    relays.push({ relay, metrics, stopped: false });
  }
});
afterAll(async () => {
  for (const r of relays) if (!r.stopped) await r.relay.stop();
  await log?.stop();
  await db?.destroy();
  await dropDatabase(databaseUrl);
});

const published = async (m: Metrics) =>
  (await m.registry.getSingleMetric(`${m.prefix}outbox_published_total`)!.get()).values[0]?.value ?? 0;

/** A relay counts a batch once its DELETE is done, a moment after the consumer may already have the events. */
async function settledCounts(expectedTotal: number): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const counts = await Promise.all(relays.map((r) => published(r.metrics)));
    if (counts.reduce((a, b) => a + b, 0) >= expectedTotal || Date.now() > deadline) return counts;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `count` events of one entity (one key, so one partition: their order on the topic is checkable). */
async function enqueue(entityId: string, count: number, from = 0) {
  for (let i = from; i < from + count; i++) {
    await db.transaction((trx) =>
      commitWrite(trx, SCHEMA, {
        rows: [],
        events: [
          {
            eventName: 'project.updated',
            entityType: 'project',
            entityId,
            organizationId: randomUUID(),
            actorUserId: null,
            payload: { n: i },
          },
        ],
      }),
    );
  }
}

describe('outbox relays of several replicas', () => {
  it('one leads and publishes every event in order; the other publishes nothing', async () => {
    const entityId = randomUUID();
    await enqueue(entityId, 40);
    const events = await log.waitFor((e) => e.entityId === entityId, 40);
    expect(events.map((e) => e.payload.n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const counts = await settledCounts(40);
    expect([...counts].sort((a, b) => a - b)).toEqual([0, 40]);
    const [{ count }] = await db(`${SCHEMA}.outbox`).count({ count: '*' });
    expect(Number(count)).toBe(0);
  });

  it('when the leader stops, the other replica takes over and publishes what follows', async () => {
    const counts = await Promise.all(relays.map((r) => published(r.metrics)));
    const leader = relays[counts[0] > 0 ? 0 : 1];
    const standby = relays[counts[0] > 0 ? 1 : 0];
    await leader.relay.stop();
    leader.stopped = true;
    const entityId = randomUUID();
    await enqueue(entityId, 20);
    const events = await log.waitFor((e) => e.entityId === entityId, 20, 15_000);
    expect(events.map((e) => e.payload.n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    await settledCounts(60);
    expect(await published(standby.metrics)).toBe(20);
  });

  it('a leader whose connection is cut reconnects, leads again, and loses nothing', async () => {
    const standby = relays.find((r) => !r.stopped)!;
    const before = await published(standby.metrics);
    const { rows } = await db.raw(
      'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = ? AND datname = current_database()',
      [`${SCHEMA}-outbox-relay`],
    );
    expect(rows.length).toBeGreaterThan(0);
    const entityId = randomUUID();
    await enqueue(entityId, 10);
    const events = await log.waitFor((e) => e.entityId === entityId, 10, 20_000);
    expect(events.map((e) => e.payload.n)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    await settledCounts(70);
    expect(await published(standby.metrics)).toBe(before + 10);
  });
});
