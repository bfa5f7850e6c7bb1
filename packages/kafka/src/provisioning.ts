import type { Admin, Kafka } from 'kafkajs';
import { ConfigResourceTypes, ConfigSource } from './client.ts';
import { kafkaStartProblem } from './diagnosis.ts';
import { clusterTopics, TOPIC_MAX_MESSAGE_BYTES, type TopicNeed } from './topics.ts';

// The topics at a start: made (and their message limit raised) when this process may, or else only checked.

/**
 * The cluster's topics under `prefix`, at the start of core and delivery (either may start first):
 * made when missing (`manage`, KAFKA_MANAGE_TOPICS), or else only checked (checkTopics).
 */
export function ensureClusterTopics(kafka: Kafka, prefix: string, { manage = true } = {}): Promise<void> {
  return manage ? ensureTopics(kafka, clusterTopics(prefix)) : checkTopics(kafka, clusterTopics(prefix));
}

/**
 * Topics that are missing or unfit while this process may not fix them (KAFKA_MANAGE_TOPICS=false):
 * someone must create or alter them, so retrying cannot help.
 */
export class TopicsNotReadyError extends Error {
  override name = 'TopicsNotReadyError';
}

/**
 * Checks, without changing anything, that each topic exists with at least its partitions and a
 * `max.message.bytes` of at least TOPIC_MAX_MESSAGE_BYTES; throws a TopicsNotReadyError naming every
 * problem (and what to create) otherwise. Needs Describe and DescribeConfigs on the topics, no more.
 */
export async function checkTopics(kafka: Kafka, topics: TopicNeed[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const present = topics.filter((t) => existing.has(t.topic));
    const problems = topics
      .filter((t) => !existing.has(t.topic))
      .map(
        (t) =>
          `topic ${t.topic} does not exist (needs ${t.numPartitions ?? 1}+ partitions, max.message.bytes >= ${TOPIC_MAX_MESSAGE_BYTES})`,
      );
    if (present.length) {
      const metadata = await admin.fetchTopicMetadata({ topics: present.map((t) => t.topic) });
      for (const t of present) {
        const partitions = metadata.topics.find((m) => m.name === t.topic)?.partitions.length ?? 0;
        if (partitions < (t.numPartitions ?? 1))
          problems.push(`topic ${t.topic} has ${partitions} partitions, needs ${t.numPartitions}+`);
      }
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: present.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.topic, configNames: ['max.message.bytes'] })),
      });
      for (const r of resources) {
        const limit = Number(r.configEntries.find((e) => e.configName === 'max.message.bytes')?.configValue ?? 0);
        if (limit < TOPIC_MAX_MESSAGE_BYTES)
          problems.push(`topic ${r.resourceName} has max.message.bytes ${limit}, needs >= ${TOPIC_MAX_MESSAGE_BYTES}`);
      }
    }
    if (problems.length)
      throw new TopicsNotReadyError(`KAFKA_MANAGE_TOPICS=false and the topics are not ready: ${problems.join('; ')}`);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Creates topics if missing (idempotent; safe when several services start together).
 * A young broker can answer metadata for a just-created topic with "does not host
 * this topic-partition" for a moment; that and other retriable answers are retried.
 */
export async function ensureTopics(kafka: Kafka, topics: TopicNeed[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await createMissingTopics(kafka, topics);
    } catch (err) {
      // kafkajs wraps a retriable answer it gave up on as non-retriable, so retry any failure a few
      // times; not one that only a change of configuration can fix (kafkaStartProblem).
      if (attempt >= 8 || kafkaStartProblem(err)) throw err;
      await new Promise((r) => setTimeout(r, 300 * attempt));
    }
  }
}

async function createMissingTopics(kafka: Kafka, topics: TopicNeed[]): Promise<void> {
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
