import { toKafkaBinary, type EventEnvelope } from '@cluster/contracts';
import { LOGICAL_TOPICS, physicalTopic, type Producer } from '@cluster/kafka';
import { CREATION_CONTEXT } from '@cluster/platform';

/** One outbox row as the relay reads it. */
export interface OutboxRow {
  topic: string;
  key: string;
  envelope: { eventName: string; id: string } & Record<string, unknown>;
  headers: Record<string, string> | null;
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

/**
 * The value and headers of a row's message. A domain event becomes a CloudEvent (binary content
 * mode, @cluster/contracts' toKafkaBinary) here, at publish time, from the envelope the row keeps:
 * rows written by an older release, still in the table, go out in the new shape too, and a release
 * rolled back publishes the rows of this one in the old shape (docs/decisions.md). Other messages
 * (dead letters) keep their JSON value with `event-name` and `event-id` headers.
 */
export function encodeRow(row: OutboxRow): { value: string; headers: Record<string, string> } {
  if (row.topic === LOGICAL_TOPICS.domainEvents) {
    const { headers, value } = toKafkaBinary(row.envelope as unknown as EventEnvelope);
    return { value, headers: { ...(row.headers ?? {}), ...headers } };
  }
  return {
    value: JSON.stringify(row.envelope),
    headers: { ...(row.headers ?? {}), 'event-name': row.envelope.eventName, 'event-id': row.envelope.id },
  };
}

/** Publishes outbox rows to Kafka, in order, acknowledged by every in-sync replica. */
export interface OutboxPublisher {
  /** Resolves once the broker has every row. */
  publish(rows: OutboxRow[]): Promise<void>;
  /** Drops the producer; the next publish makes and connects a fresh one. */
  replace(): Promise<void>;
}

/**
 * The Kafka side of the relay. It makes its producer lazily and replaces it on
 * request: a kafkajs idempotent producer whose broker lost its producer state (a
 * crash) can stay stuck on sequence errors for good.
 */
export function createOutboxPublisher(opts: {
  newProducer: () => Producer;
  topicPrefix: string;
  maxRequestBytes: number;
}): OutboxPublisher {
  let producer: Producer | undefined;
  const connected = async (): Promise<Producer> => {
    if (!producer) {
      const fresh = opts.newProducer();
      await fresh.connect();
      producer = fresh;
    }
    return producer;
  };
  return {
    async publish(rows) {
      const messages = rows.map((row) => ({
        // Rows name logical topics; this process's prefix makes them Kafka topics.
        topic: physicalTopic(row.topic, opts.topicPrefix),
        key: row.key,
        ...encodeRow(row),
        // The trace the row was written in, for the Kafka instrumentation's producer hook: it keeps
        // that context in the message's headers rather than the relay's (instrumentation.ts).
        [CREATION_CONTEXT]: row.headers,
      }));
      // In order, in requests of at most maxRequestBytes: a record batch over the topic's
      // max.message.bytes would be refused every time, and stop the relay for good.
      for (const chunk of chunksBySize(messages, opts.maxRequestBytes)) {
        const byTopic = new Map<string, OutgoingMessage[]>();
        for (const { topic, ...m } of chunk) byTopic.set(topic, [...(byTopic.get(topic) ?? []), m]);
        await (
          await connected()
        ).sendBatch({
          acks: -1,
          topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })),
        });
      }
    },
    async replace() {
      const old = producer;
      producer = undefined;
      await old?.disconnect().catch(() => {});
    },
  };
}
