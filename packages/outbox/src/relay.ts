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
 * time holds the batch (transaction-scoped advisory lock), so order holds across
 * replicas; rows are deleted only after the broker acknowledged them, so a crash
 * at any point republishes rather than loses.
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
  let listener: pg.Client | undefined;

  const relayBatch = (): Promise<number> =>
    db.transaction(async (trx) => {
      const { rows } = await trx.raw('SELECT pg_try_advisory_xact_lock(hashtext(?)) AS locked', [`${schema}:outbox-relay`]);
      if (!rows[0].locked) return 0;
      const batch = await trx(table).orderBy('seq').limit(batchSize).forUpdate().skipLocked();
      if (!batch.length) return 0;
      const messages = batch.map((row) => {
        const env = row.envelope as { eventName: string; id: string };
        const headers = { ...((row.headers as Record<string, string> | null) ?? {}), 'event-name': env.eventName, 'event-id': env.id };
        // Rows name logical topics; this process's prefix makes them Kafka topics.
        return { topic: physicalTopic(row.topic), key: row.key as string, value: JSON.stringify(row.envelope), headers };
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
      await trx(table).whereIn('seq', batch.map((r) => r.seq)).del();
      published.inc(batch.length);
      return batch.length;
    });

  const listen = async () => {
    try {
      listener = new pg.Client({ connectionString: opts.databaseUrl });
      listener.on('error', () => {
        listener = undefined;
        if (!stopping) setTimeout(() => void listen(), 1000);
      });
      listener.on('notification', () => waker.wake());
      await listener.connect();
      await listener.query(`LISTEN ${schema}_outbox`);
    } catch (err) {
      logger.warn({ err }, 'outbox LISTEN failed; polling only');
    }
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
        if (consecutiveFailures % 3 === 0) await replaceProducer();
        await waker.sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  };

  return {
    start() {
      void listen();
      loop = run();
    },
    async stop() {
      stopping = true;
      waker.stop();
      await loop;
      await listener?.end().catch(() => {});
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
