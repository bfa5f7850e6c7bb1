import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { createDb, ensureDatabase, type Knex } from '@cluster/db';
import { createKafka, createProducer, ensureTopics, topicNames } from '@cluster/kafka';
import { addOutboxSlots, createOutboxRelay, createOutboxTable, commitWrite, type OutboxRelay } from '@cluster/outbox';
import { createLogger, createMetrics } from '@cluster/platform';
import { createEventLog, dropDatabase, freshDatabaseUrl, requireEnv, type EventLog } from './support/cluster.ts';

// The relay's linger (OUTBOX_RELAY_LINGER_MS): rows committed close together share one produce
// request, a row after a quiet spell goes at once (bench/README.md, "Kafka client and broker cost").
const SCHEMA = 'lingertest';
const LINGER_MS = 2000;
const { brokers } = requireEnv();
const databaseUrl = freshDatabaseUrl('linger');
const topicPrefix = `g${randomBytes(4).toString('hex')}.`;
let db: Knex;
let log: EventLog;
let relay: OutboxRelay;
/** The produce requests the relay made (its producer's sendBatch calls). */
let sends = 0;

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  db = createDb(databaseUrl, { schema: SCHEMA, poolMax: 4 });
  await db.raw(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
  await createOutboxTable(db, SCHEMA);
  await addOutboxSlots(db, SCHEMA);
  const kafka = createKafka({ brokers, clientId: 'linger-test' });
  await ensureTopics(kafka, [{ topic: topicNames(topicPrefix).domainEvents, numPartitions: 3 }]);
  log = await createEventLog(brokers, topicNames(topicPrefix).domainEvents);
  relay = createOutboxRelay({
    db,
    schema: SCHEMA,
    databaseUrl,
    newProducer: () => {
      const producer = createProducer(kafka);
      const sendBatch = producer.sendBatch.bind(producer);
      producer.sendBatch = (batch) => {
        sends++;
        return sendBatch(batch);
      };
      return producer;
    },
    logger: createLogger('test', 'silent'),
    metrics: createMetrics('linger'),
    idleMs: 60_000, // only NOTIFY wakes it
    lingerMs: LINGER_MS,
    topicPrefix,
  });
  relay.start();
});
afterAll(async () => {
  await relay?.stop();
  await log?.stop();
  await db?.destroy();
  await dropDatabase(databaseUrl);
});

async function commit(entityId: string, n: number) {
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
          payload: { n },
        },
      ],
    }),
  );
}

describe('outbox relay linger', () => {
  it('publishes a row after a quiet spell at once, and the rows committed within the linger in one request, in order', async () => {
    const entityId = randomUUID();
    // Quiet since the relay started (its first look found nothing): the first row goes at once.
    await new Promise((r) => setTimeout(r, LINGER_MS + 200));
    const first = Date.now();
    await commit(entityId, 0);
    await log.waitFor((e) => e.entityId === entityId, 1, 10_000);
    expect(Date.now() - first).toBeLessThan(LINGER_MS - 200);
    const before = sends;
    // 20 rows committed one by one right after: they wait for the rest of the linger, then go together.
    for (let i = 1; i <= 20; i++) await commit(entityId, i);
    const events = await log.waitFor((e) => e.entityId === entityId, 21, 15_000);
    expect(events.map((e) => e.payload.n)).toEqual(Array.from({ length: 21 }, (_, i) => i));
    expect(Date.now() - first).toBeGreaterThanOrEqual(LINGER_MS - 50);
    expect(sends - before).toBeLessThanOrEqual(2); // without the linger: about one per commit
    const [{ count }] = await db(`${SCHEMA}.outbox`).count({ count: '*' });
    expect(Number(count)).toBe(0);
  });
});
