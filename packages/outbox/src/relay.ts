import pg from 'pg';
import { Counter, Gauge } from 'prom-client';
import type { Knex } from '@cluster/db';
import { physicalTopic, type Producer } from '@cluster/kafka';
import { createWaker, type Logger, type Metrics } from '@cluster/platform';

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
}

interface OutgoingMessage {
  key: string;
  value: string;
  headers: Record<string, string>;
}

/** Splits messages, in order, into runs of at most `maxBytes` (a larger message is a run of its own). */
export function chunksBySize<T extends OutgoingMessage>(messages: T[], maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const m of messages) {
    const bytes = Buffer.byteLength(m.value) + Buffer.byteLength(m.key) + 64 + JSON.stringify(m.headers).length;
    if (current.length && size + bytes > maxBytes) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(m);
    size += bytes;
  }
  if (current.length) chunks.push(current);
  return chunks;
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
 * time leads (a session advisory lock on its own connection), so order holds
 * across replicas; rows are deleted only after the broker acknowledged them, so a
 * crash at any point republishes rather than loses.
 */
export function createOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { db, logger, metrics, schema } = opts;
  let producer: Producer | undefined;
  let consecutiveFailures = 0;
  const connectedProducer = async (): Promise<Producer> => {
    if (!producer) {
      const fresh = opts.newProducer();
      await fresh.connect();
      producer = fresh;
    }
    return producer;
  };
  const replaceProducer = async (): Promise<void> => {
    const old = producer;
    producer = undefined;
    await old?.disconnect().catch(() => {});
  };
  const table = `${schema}.outbox`;
  const batchSize = opts.batchSize ?? 500;
  const maxRequestBytes = opts.maxRequestBytes ?? 512 * 1024;
  const idleMs = opts.idleMs ?? 1000;
  const published = new Counter({
    name: `${metrics.prefix}outbox_published_total`,
    help: 'Domain events published from the outbox to Kafka.',
    registers: [metrics.registry],
  });
  const failures = new Counter({
    name: `${metrics.prefix}outbox_publish_failures_total`,
    help: 'Outbox batches that failed to publish (they are retried).',
    registers: [metrics.registry],
  });
  new Gauge({
    name: `${metrics.prefix}outbox_backlog`,
    help: 'Outbox rows not yet published.',
    registers: [metrics.registry],
    async collect() {
      const [{ count }] = await db(table).count({ count: '*' }).catch(() => [{ count: 0 }]);
      this.set(Number(count));
    },
  });
  new Gauge({
    name: `${metrics.prefix}outbox_oldest_age_seconds`,
    help: 'Age of the oldest unpublished outbox row.',
    registers: [metrics.registry],
    async collect() {
      const row = await db(table).min({ oldest: 'createdAt' }).first().catch(() => undefined);
      const oldest = row?.oldest as Date | null | undefined;
      this.set(oldest ? (Date.now() - new Date(oldest).getTime()) / 1000 : 0);
    },
  });

  let stopping = false;
  let loop: Promise<void> | undefined;
  // A notification that arrives while a batch is in flight is kept for the next sleep.
  const waker = createWaker();

  // The relay's own connection. It holds a session advisory lock while this relay
  // leads (one relay at a time publishes, so order holds across replicas), LISTENs
  // for new rows, and runs the batches: a batch is then two statements (read, delete)
  // with no transaction around them. Losing the connection releases the lock, so a
  // standby replica takes over within `idleMs` when the leader dies.
  let conn: pg.Client | undefined;
  let leading = false;
  const dropConnection = async (): Promise<void> => {
    const c = conn;
    conn = undefined;
    leading = false;
    await c?.end().catch(() => {});
  };
  const leaderConnection = async (): Promise<pg.Client | undefined> => {
    if (conn && leading) return conn;
    if (!conn) {
      const c = new pg.Client({ connectionString: opts.databaseUrl, application_name: `${schema}-outbox-relay` });
      // A connection that fails or ends (the server restarted, a socket broke) is dropped at
      // once, so the next batch reconnects and takes the lead again if it is free.
      const forget = () => {
        if (conn !== c) return;
        conn = undefined;
        leading = false;
      };
      c.on('end', forget);
      c.on('error', (err) => {
        logger.warn({ err }, 'outbox relay connection lost; reconnecting');
        forget();
        void c.end().catch(() => {});
        waker.wake();
      });
      c.on('notification', () => waker.wake());
      await c.connect();
      conn = c;
    }
    const { rows } = await conn.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [`${schema}:outbox-relay`]);
    if (!rows[0].locked) return undefined;
    await conn.query(`LISTEN ${schema}_outbox`);
    leading = true;
    return conn;
  };

  const publishBatch = async (): Promise<number> => {
    const c = await leaderConnection();
    if (!c) return 0;
    const { rows: batch } = await c.query(`SELECT seq, topic, key, envelope, headers FROM ${table} ORDER BY seq LIMIT $1`, [batchSize]);
    if (!batch.length) return 0;
    const messages = batch.map((row) => {
      const env = row.envelope as { eventName: string; id: string };
      const headers = { ...((row.headers as Record<string, string> | null) ?? {}), 'event-name': env.eventName, 'event-id': env.id };
      // Rows name logical topics; this process's prefix makes them Kafka topics.
      return { topic: physicalTopic(row.topic, opts.topicPrefix), key: row.key as string, value: JSON.stringify(row.envelope), headers };
    });
    // In order, in requests of at most maxRequestBytes: a record batch over the topic's
    // max.message.bytes would be refused every time, and stop the relay for good.
    for (const chunk of chunksBySize(messages, maxRequestBytes)) {
      const byTopic = new Map<string, OutgoingMessage[]>();
      for (const { topic, ...m } of chunk) byTopic.set(topic, [...(byTopic.get(topic) ?? []), m]);
      await (await connectedProducer()).sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })),
      });
    }
    // Deleted only once the broker has them all: a crash before this republishes, never loses.
    await c.query(`DELETE FROM ${table} WHERE seq = ANY($1::bigint[])`, [batch.map((r) => r.seq)]);
    published.inc(batch.length);
    return batch.length;
  };
  // Batches of this process run one at a time (the loop and flush() share the connection).
  let queue: Promise<unknown> = Promise.resolve();
  const relayBatch = (): Promise<number> => {
    const next = queue.then(publishBatch);
    queue = next.catch(() => {});
    return next;
  };

  const run = async () => {
    let backoff = 200;
    while (!stopping) {
      try {
        waker.clear();
        const n = await relayBatch();
        backoff = 200;
        consecutiveFailures = 0;
        if (n === batchSize) continue;
        await waker.sleep(idleMs);
      } catch (err) {
        failures.inc();
        consecutiveFailures++;
        logger.warn({ err, consecutiveFailures }, 'outbox publish failed; retrying');
        if (consecutiveFailures % 3 === 0) {
          // Start afresh, and let another replica lead meanwhile if it can do better.
          await replaceProducer();
          await dropConnection();
        }
        await waker.sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  };

  return {
    start() {
      loop = run();
    },
    async stop() {
      stopping = true;
      waker.stop();
      await loop;
      await queue;
      await dropConnection();
      await replaceProducer();
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
