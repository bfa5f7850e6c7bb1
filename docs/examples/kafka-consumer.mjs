// A consumer of the cluster's domain events (docs/events.md, "Consuming events"): it reads the topic
// with kafkajs, the Kafka client the services use, and prints each event as one JSON line
// {id, type, source, subject, time, dataschema, data}. Kept true by test/kafka-consumer-example.test.ts.
//
//   npm install kafkajs                      # in a checkout of this repository it is installed
//   KAFKA_BROKERS=127.0.0.1:19092 FROM_BEGINNING=true node docs/examples/kafka-consumer.mjs
//
// Settings: KAFKA_BROKERS (the address `npm start` prints), KAFKA_TOPIC_PREFIX (the cluster's, if it
// has one), KAFKA_GROUP_ID (your own consumer group: never `<prefix>delivery`, the delivery
// service's), FROM_BEGINNING=true (a new group reads what the topic still holds, else only new
// events); in production also KAFKA_SSL=true, KAFKA_SASL_MECHANISM (plain, scram-sha-256,
// scram-sha-512), KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (docs/events.md, "In production").
import { Kafka, logLevel } from 'kafkajs';

const env = process.env;
const prefix = env.KAFKA_TOPIC_PREFIX ?? '';
const topic = `${prefix}cluster.domain-events.v1`;
const groupId = env.KAFKA_GROUP_ID ?? 'example-event-reader';
if (groupId === `${prefix}delivery`) {
  process.stderr.write(
    `KAFKA_GROUP_ID ${groupId} is the delivery service's group: reading in it takes its events away; choose your own\n`,
  );
  process.exit(2);
}

const kafka = new Kafka({
  clientId: 'example-event-reader',
  brokers: (env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(','),
  ssl: env.KAFKA_SSL === 'true',
  sasl: env.KAFKA_SASL_MECHANISM
    ? { mechanism: env.KAFKA_SASL_MECHANISM, username: env.KAFKA_SASL_USERNAME, password: env.KAFKA_SASL_PASSWORD }
    : undefined,
  logLevel: logLevel.WARN,
});
const consumer = kafka.consumer({ groupId });

/** A header's value as text (kafkajs hands over Buffers). */
const header = (message, name) => message.headers?.[name]?.toString();

/**
 * The event of a message: a CloudEvent in binary mode (attributes in `ce_*` headers, the data as the
 * value), or the JSON envelope an older release published (docs/events.md, "The move from the envelope").
 */
function eventOf(message) {
  const value = JSON.parse(message.value?.toString() ?? 'null');
  if (header(message, 'ce_specversion')) {
    const [id, type, source, subject, time, dataschema] = ['id', 'type', 'source', 'subject', 'time', 'dataschema'].map((a) =>
      header(message, `ce_${a}`),
    );
    return { id, type, source, subject, time, dataschema, data: value };
  }
  return {
    id: value.id,
    type: value.eventName,
    source: `/organizations/${value.organizationId}`,
    subject: value.entityId,
    time: value.occurredAt,
    dataschema: `urn:cluster:event-schema:${value.eventName}:v${value.schemaVersion}`,
    data: value.payload,
  };
}

// Delivery is at least once: an event may come again (a relay that crashed after publishing).
// De-duplicate on its id; this keeps the last 100 000 in memory, a real consumer in its store.
const seen = new Set();

await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: env.FROM_BEGINNING === 'true' });
consumer.on(consumer.events.GROUP_JOIN, () => process.stderr.write(`reading ${topic} as group ${groupId}\n`));
await consumer.run({
  eachMessage: async ({ message }) => {
    const event = eventOf(message);
    if (seen.has(event.id)) return;
    seen.add(event.id);
    if (seen.size > 100_000) seen.delete(seen.values().next().value);
    // Route on event.type ('entry.created', ...), tenant on event.source ('/organizations/<id>').
    process.stdout.write(`${JSON.stringify(event)}\n`);
  },
});

for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    void consumer.disconnect().finally(() => process.exit(0));
  });
