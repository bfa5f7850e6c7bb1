import { Counter, Gauge } from 'prom-client';
import type { DbTimeouts, Knex } from '@cluster/db';
import type { Producer } from '@cluster/kafka';
import { createBatchLoop, sqlGauge, type Logger, type Metrics } from '@cluster/platform';
import { createSlotLeases } from './leases.ts';
import { createRelayConnection, type RelaySession } from './relay-connection.ts';
import { createOutboxPublisher, type OutboxRow } from './publisher.ts';

export interface OutboxRelayOptions {
  db: Knex;
  /** Schema whose `outbox` table this relay drains. */
  schema: string;
  databaseUrl: string;
  /**
   * Makes the relay's producer. The relay connects it, and replaces it after
   * repeated failures: a kafkajs idempotent producer whose broker lost its
   * producer state (a crash) can stay stuck on sequence errors for good.
   */
  newProducer: () => Producer;
  logger: Logger;
  metrics: Metrics;
  batchSize?: number;
  idleMs?: number;
  /**
   * Shortest time between the starts of two batches that are not full (OUTBOX_RELAY_LINGER_MS,
   * default 0): rows committed meanwhile go out in one produce request rather than one each, which
   * saves the broker a produce and a consumer fetch per row, and Postgres a read and a delete. A row
   * after a quiet spell goes at once; under load a row waits at most this long
   * (bench/README.md, "Kafka client and broker cost").
   */
  lingerMs?: number;
  /**
   * Most bytes of messages in one produce request (default 512 KiB); a larger
   * message goes alone. Keeps every record batch under the topic's limit.
   */
  maxRequestBytes?: number;
  /** This process's Kafka topic prefix (its KAFKA_TOPIC_PREFIX), added to the logical topic of each row. */
  topicPrefix: string;
  /**
   * Bounds of every wait of the relay's own connection (the pools' DB_STATEMENT_TIMEOUT_MS and
   * DB_ACQUIRE_TIMEOUT_MS): a frozen server or a half-open socket fails a batch within them, and the
   * next batch opens a new connection (createLeaderConnection).
   */
  timeouts?: DbTimeouts;
  /**
   * Slots writers hash entities into (OUTBOX_RELAY_SLOTS, default 1): each has its own lease and its
   * own order, so as many relays publish in parallel (docs/decisions.md, "Transactional outbox").
   */
  slots?: number;
  /** How long a lease holds without renewal (OUTBOX_RELAY_LEASE_MS, default 10 s): a frozen relay's slots move after it. */
  leaseMs?: number;
}

export interface OutboxRelay {
  start(): void;
  /** Finishes the batch in flight, then stops and disconnects its producer. Unpublished rows stay in the outbox. */
  stop(): Promise<void>;
  /** Publishes what is pending now (used by tests and shutdown). */
  flush(): Promise<number>;
}

/**
 * Publishes outbox rows to Kafka, at least once, in commit order per slot. Each row has a slot (a
 * hash of its entity id, written with it); each slot is led by one relay at a time, holding its
 * lease row (createSlotLeases), so relays of several replicas publish different slots in parallel
 * and an entity's events keep their order. A row is published only once no older row of its entity
 * waits in another slot (written before the slot count changed, or by a release without slots).
 * Rows are deleted only after the broker acknowledged them (createOutboxPublisher), so a crash at any
 * point republishes rather than loses. This loop composes the three.
 */
export function createOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { db, logger, metrics, schema } = opts;
  const table = `${schema}.outbox`;
  const batchSize = opts.batchSize ?? 500;
  const idleMs = opts.idleMs ?? 1000;
  const counters = relayMetrics(db, table, metrics);
  const publisher = createOutboxPublisher({
    newProducer: opts.newProducer,
    topicPrefix: opts.topicPrefix,
    maxRequestBytes: opts.maxRequestBytes ?? 512 * 1024,
  });
  // The relay's own connection: it LISTENs for new rows, renews the leases and runs the batches,
  // so a batch is two statements (read, delete) with no transaction around them.
  const conn = createRelayConnection({
    databaseUrl: opts.databaseUrl,
    applicationName: `${schema}-outbox-relay`,
    channel: `${schema}_outbox`,
    logger,
    timeouts: opts.timeouts,
    onWake: () => loop.wake(),
  });
  const leases = createSlotLeases({ schema, slots: opts.slots ?? 1, leaseMs: opts.leaseMs ?? 10_000, retryMs: idleMs });
  let generation = -1;
  let rotation = 0;

  // The batch's two statements, named: parsed and planned once per connection, not once per batch.
  const READ = {
    name: `${schema}-outbox-read-v1`,
    text: `SELECT o.seq, o.topic, o.key, o.envelope, o.headers FROM ${table} o
        WHERE o.slot = $1
          AND NOT EXISTS (SELECT 1 FROM ${table} p WHERE p.key = o.key AND p.seq < o.seq AND p.slot <> $1)
        ORDER BY o.seq LIMIT $2`,
  };
  const DELETE = { name: `${schema}-outbox-delete-v1`, text: `DELETE FROM ${table} WHERE seq = ANY($1::bigint[])` };

  /** One batch of `slot`, oldest first, leaving out rows of an entity with an older row in another slot. */
  const publishSlot = async (c: RelaySession, slot: number): Promise<number> => {
    const { rows: batch } = await c.query<OutboxRow & { seq: number }>(READ, [slot, batchSize]);
    if (!batch.length) return 0;
    await publisher.publish(batch);
    // Deleted only once the broker has them all: a crash before this republishes, never loses.
    await c.query(DELETE, [batch.map((r) => r.seq)]);
    counters.published.inc(batch.length);
    return batch.length;
  };

  /** Renews the leases when due, then one batch of each slot led; as full as its fullest slot's. */
  const publishBatch = async (): Promise<number> => {
    const c = await conn.session();
    if (c.generation !== generation) {
      // A new connection: the leases were tied to the old one's backend, so claim them again.
      leases.forget();
      generation = c.generation;
    }
    if (leases.due()) counters.slotsLed.set((await leases.renew(c)).length);
    const slots = leases.held();
    let fullest = 0;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[(rotation + i) % slots.length];
      if (!leases.held().includes(slot)) break; // the leases lapsed by this relay's clock: renew first
      fullest = Math.max(fullest, await publishSlot(c, slot));
    }
    rotation++;
    return fullest;
  };
  // Batches of this process run one at a time (the loop and flush() share the connection).
  let queue: Promise<unknown> = Promise.resolve();
  const relayBatch = (): Promise<number> => {
    const next = queue.then(publishBatch);
    queue = next.catch(() => {});
    return next;
  };

  const loop = createBatchLoop({
    step: relayBatch,
    batchSize,
    idleMs,
    lingerMs: opts.lingerMs,
    backoff: { initialMs: 200, maxMs: 5000 },
    onError: async (err, consecutiveFailures) => {
      counters.failures.inc();
      logger.warn({ err, consecutiveFailures }, 'outbox publish failed; retrying');
      if (consecutiveFailures % 3 === 0) {
        // Start afresh, and let another replica lead meanwhile if it can do better.
        await publisher.replace();
        await conn.drop();
      }
    },
  });

  return {
    start() {
      loop.start();
    },
    async stop() {
      await loop.stop();
      await queue;
      // Gives the slots back at once (a connection that ends frees them too, at the others' next renewal).
      const c = conn.current();
      if (c?.generation === generation) await leases.leave(c).catch(() => {});
      await conn.drop();
      await publisher.replace();
    },
    async flush() {
      let total = 0;
      for (;;) {
        const n = await relayBatch();
        total += n;
        if (n < batchSize) return total;
      }
    },
  };
}

/** The relay's metrics: published and failed batches, and the backlog an SRE alerts on. */
function relayMetrics(db: Knex, table: string, metrics: Metrics) {
  // Read by the process's SQL-gauge sampler: at most once per 5 s, one query at a time, whatever the scrapes.
  sqlGauge(metrics, {
    name: `${metrics.prefix}outbox_backlog`,
    help: 'Outbox rows not yet published.',
    read: async () => {
      const [{ count }] = await db(table)
        .count({ count: '*' })
        .catch(() => [{ count: 0 }]);
      return Number(count);
    },
  });
  sqlGauge(metrics, {
    name: `${metrics.prefix}outbox_oldest_age_seconds`,
    help: 'Age of the oldest unpublished outbox row.',
    read: async () => {
      const row = await db(table)
        .min({ oldest: 'createdAt' })
        .first()
        .catch(() => undefined);
      const oldest = row?.oldest as Date | null | undefined;
      return oldest ? (Date.now() - new Date(oldest).getTime()) / 1000 : 0;
    },
  });
  return {
    slotsLed: new Gauge({
      name: `${metrics.prefix}outbox_slots_led`,
      help: 'Outbox relay slots this process leads.',
      registers: [metrics.registry],
    }),
    published: new Counter({
      name: `${metrics.prefix}outbox_published_total`,
      help: 'Domain events published from the outbox to Kafka.',
      registers: [metrics.registry],
    }),
    failures: new Counter({
      name: `${metrics.prefix}outbox_publish_failures_total`,
      help: 'Outbox batches that failed to publish (they are retried).',
      registers: [metrics.registry],
    }),
  };
}
