import './request-queue-fix.ts';
import kafkajs, {
  Kafka,
  Partitioners,
  logLevel,
  type Consumer,
  type Producer,
  type Admin,
  type KafkaMessage,
  type EachBatchPayload,
} from 'kafkajs';

// The one module that imports the Kafka client (docs/decisions.md: kafkajs 2.2.4 on Kafka 3.9.1).
export type { Consumer, Producer, Admin, KafkaMessage, EachBatchPayload };
// Enums that Node's ESM loader cannot see as named exports of the CommonJS package.
export const { ConfigResourceTypes, ConfigSource } = kafkajs;

/**
 * The Kafka topic of a logical topic name: the name with this process's topic
 * prefix (its KAFKA_TOPIC_PREFIX; a prefix isolates test runs that share one
 * broker). Outbox rows store logical names and the relay resolves them when it
 * publishes, so a row written by another process (the admin CLI run without the
 * prefix) still goes where the services' topics are.
 */
export function physicalTopic(logical: string, prefix: string): string {
  return `${prefix}${logical}`;
}

/**
 * Partitions of the domain-event topic: the most delivery consumers that get work
 * (k8s/base/delivery.yaml scales delivery up to this many replicas, no further).
 */
export const DOMAIN_EVENT_PARTITIONS = 6;

/** Kafka topics of this process, with its topic prefix (KAFKA_TOPIC_PREFIX). */
export function topicNames(prefix: string) {
  return {
    /** Every domain event, keyed by entity id, value: EventEnvelope JSON. */
    domainEvents: `${prefix}cluster.domain-events.v1`,
    /** Deliveries that exhausted their retries, keyed by subscription id. */
    deliveryDeadLetter: `${prefix}cluster.webhook-deliveries.dead-letter.v1`,
  };
}

/** The part of a pino logger the client's log lines go to. */
export interface KafkaLogSink {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  /** Where the client's own log lines go (JSON, with the service's fields). */
  logger?: KafkaLogSink;
  /** Which of them: `debug` all, `warn` (the default) its warnings (KAFKAJS_LOG_LEVEL). */
  logLevel?: 'warn' | 'debug';
}

/**
 * kafkajs logs retriable broker answers (a coordinator still loading, a leader
 * moving) at ERROR and then retries; a real failure surfaces as a rejected call
 * that our code logs. So its ERROR and WARN lines become our WARN, INFO our DEBUG.
 */
function logCreator(sink: KafkaLogSink) {
  return () =>
    ({ level, log }: { level: logLevel; log: { message: string } & Record<string, unknown> }) => {
      const { message, timestamp: _t, logger: _l, ...rest } = log;
      if (level <= logLevel.WARN) sink.warn({ kafkajs: rest }, `kafkajs: ${message}`);
      else sink.debug({ kafkajs: rest }, `kafkajs: ${message}`);
    };
}

/** The Kafka client of a process, its log lines in the service's logger. */
export function createKafka(opts: KafkaOptions): Kafka {
  const level = opts.logLevel === 'debug' ? logLevel.DEBUG : logLevel.WARN;
  return new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    logLevel: opts.logger ? level : logLevel.NOTHING,
    logCreator: opts.logger ? logCreator(opts.logger) : undefined,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 5000 },
    connectionTimeout: 3000,
  });
}

/**
 * The cluster's topics (domain events, dead letters) under `prefix`: core and delivery both make them
 * at start, so either may start first.
 */
export function ensureClusterTopics(kafka: Kafka, prefix: string): Promise<void> {
  const topics = topicNames(prefix);
  return ensureTopics(kafka, [
    { topic: topics.domainEvents, numPartitions: DOMAIN_EVENT_PARTITIONS },
    { topic: topics.deliveryDeadLetter },
  ]);
}

/**
 * Creates topics if missing (idempotent; safe when several services start together).
 * A young broker can answer metadata for a just-created topic with "does not host
 * this topic-partition" for a moment; that and other retriable answers are retried.
 */
export async function ensureTopics(kafka: Kafka, topics: { topic: string; numPartitions?: number }[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await createMissingTopics(kafka, topics);
    } catch (err) {
      // kafkajs wraps a retriable answer it gave up on as non-retriable, so retry any failure a few times.
      if (attempt >= 8) throw err;
      await new Promise((r) => setTimeout(r, 300 * attempt));
    }
  }
}

/**
 * Largest message (record batch) our topics take: 4 MiB. An event can carry a
 * field as large as a request body (1 MiB: a comment), and Kafka's default of
 * about 1 MB would refuse it, stalling the in-order outbox relay behind it.
 */
export const TOPIC_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

async function createMissingTopics(kafka: Kafka, topics: { topic: string; numPartitions?: number }[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length) {
      await admin
        .createTopics({
          waitForLeaders: true,
          topics: missing.map((t) => ({
            topic: t.topic,
            numPartitions: t.numPartitions ?? 3,
            replicationFactor: -1,
            configEntries: [{ name: 'max.message.bytes', value: String(TOPIC_MAX_MESSAGE_BYTES) }],
          })),
        })
        .catch((err: { type?: string }) => {
          if (err.type !== 'TOPIC_ALREADY_EXISTS') throw err;
        });
    }
    await raiseMessageLimit(
      admin,
      topics.filter((t) => existing.has(t.topic)).map((t) => t.topic),
    );
  } finally {
    await admin.disconnect();
  }
}

/** Topics made before the limit was set (or by someone else) get it too, keeping their other settings. */
async function raiseMessageLimit(admin: Admin, topics: string[]): Promise<void> {
  if (!topics.length) return;
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })),
  });
  for (const r of resources) {
    const limit = r.configEntries.find((e) => e.configName === 'max.message.bytes');
    if (limit && Number(limit.configValue) >= TOPIC_MAX_MESSAGE_BYTES) continue;
    // alterConfigs replaces a topic's whole override set: carry the other overrides over.
    const overrides = r.configEntries
      .filter((e) => e.configSource === ConfigSource.TOPIC_CONFIG && e.configName !== 'max.message.bytes')
      .map((e) => ({ name: e.configName, value: e.configValue }));
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: r.resourceName,
          configEntries: [...overrides, { name: 'max.message.bytes', value: String(TOPIC_MAX_MESSAGE_BYTES) }],
        },
      ],
    });
  }
}

/**
 * True when the broker answers a metadata request; connects `admin` first (a no-op while connected),
 * so a service that started while Kafka was down needs nothing else. Unbounded: callers bound it
 * (createReadiness in @cluster/platform).
 */
export async function pingKafka(admin: Admin): Promise<boolean> {
  try {
    await admin.connect();
    await admin.describeCluster();
    return true;
  } catch {
    return false;
  }
}

/**
 * An idempotent producer that waits for all in-sync replicas. Its retries are
 * bounded on purpose: the outbox, not the producer, guarantees delivery (a failed
 * batch stays in the outbox and is sent again), so a broker outage must not block
 * shutdown. kafkajs warns about that once at start.
 */
export function createProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
}

/** Topic names without any prefix: what outbox rows store (see physicalTopic). */
export const LOGICAL_TOPICS = topicNames('');
