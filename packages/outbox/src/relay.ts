import { Counter } from 'prom-client';
import type { DbTimeouts, Knex } from '@cluster/db';
import type { Producer } from '@cluster/kafka';
import { createBatchLoop, sqlGauge, type Logger, type Metrics } from '@cluster/platform';
import { createLeaderConnection } from './leader-connection.ts';
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
}

export interface OutboxRelay {
  start(): void;
  /** Finishes the batch in flight, then stops and disconnects its producer. Unpublished rows stay in the outbox. */
  stop(): Promise<void>;
  /** Publishes what is pending now (used by tests and shutdown). */
  flush(): Promise<number>;
}

/**
 * Publishes outbox rows to Kafka in commit order, at least once. One relay at a
 * time leads (createLeaderConnection), so order holds across replicas; rows are
 * deleted only after the broker acknowledged them (createOutboxPublisher), so a
 * crash at any point republishes rather than loses. This loop composes the two.
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
  // The relay's own connection: it leads, LISTENs for new rows and runs the batches,
  // so a batch is two statements (read, delete) with no transaction around them.
  const leader = createLeaderConnection({
    databaseUrl: opts.databaseUrl,
    applicationName: `${schema}-outbox-relay`,
    lockName: `${schema}:outbox-relay`,
    channel: `${schema}_outbox`,
    logger,
    timeouts: opts.timeouts,
    onWake: () => loop.wake(),
  });

  const publishBatch = async (): Promise<number> => {
    const c = await leader.acquire();
    if (!c) return 0;
    const { rows: batch } = await c.query<OutboxRow & { seq: number }>(
      `SELECT seq, topic, key, envelope, headers FROM ${table} ORDER BY seq LIMIT $1`,
      [batchSize],
    );
    if (!batch.length) return 0;
    await publisher.publish(batch);
    // Deleted only once the broker has them all: a crash before this republishes, never loses.
    await c.query(`DELETE FROM ${table} WHERE seq = ANY($1::bigint[])`, [batch.map((r) => r.seq)]);
    counters.published.inc(batch.length);
    return batch.length;
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
    backoff: { initialMs: 200, maxMs: 5000 },
    onError: async (err, consecutiveFailures) => {
      counters.failures.inc();
      logger.warn({ err, consecutiveFailures }, 'outbox publish failed; retrying');
      if (consecutiveFailures % 3 === 0) {
        // Start afresh, and let another replica lead meanwhile if it can do better.
        await publisher.replace();
        await leader.drop();
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
      await leader.drop();
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
