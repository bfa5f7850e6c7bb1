import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTopics, ConfigResourceTypes, createKafka, ensureTopics, TOPIC_MAX_MESSAGE_BYTES, type Admin } from '@cluster/kafka';
import { requireEnv } from './support/cluster.ts';

// The services create their topics at start (real broker): with room for the largest event.
const { brokers } = requireEnv();
const kafka = createKafka({ brokers, clientId: 'topics-test' });
let admin: Admin;
const prefix = `t${randomBytes(4).toString('hex')}.`;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  await admin.deleteTopics({ topics: [`${prefix}fresh`, `${prefix}old`, `${prefix}narrow`] }).catch(() => {});
  await admin.disconnect();
});

async function topicConfig(topic: string): Promise<Map<string, string>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
  });
  return new Map(resources[0].configEntries.map((e) => [e.configName, e.configValue]));
}

describe('ensureTopics', () => {
  it('creates missing topics with the partitions asked for and a 4 MiB message limit, once', async () => {
    await ensureTopics(kafka, [{ topic: `${prefix}fresh`, numPartitions: 6 }]);
    await ensureTopics(kafka, [{ topic: `${prefix}fresh`, numPartitions: 6 }]);
    const meta = await admin.fetchTopicMetadata({ topics: [`${prefix}fresh`] });
    expect(meta.topics[0].partitions).toHaveLength(6);
    expect((await topicConfig(`${prefix}fresh`)).get('max.message.bytes')).toBe(String(TOPIC_MAX_MESSAGE_BYTES));
  });

  it('raises the limit of a topic made before (broker default) and keeps its other settings', async () => {
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic: `${prefix}old`,
          numPartitions: 1,
          replicationFactor: -1,
          configEntries: [{ name: 'retention.ms', value: '3600000' }],
        },
      ],
    });
    expect(Number((await topicConfig(`${prefix}old`)).get('max.message.bytes'))).toBeLessThan(TOPIC_MAX_MESSAGE_BYTES);
    await ensureTopics(kafka, [{ topic: `${prefix}old` }]);
    const config = await topicConfig(`${prefix}old`);
    expect(config.get('max.message.bytes')).toBe(String(TOPIC_MAX_MESSAGE_BYTES));
    expect(config.get('retention.ms')).toBe('3600000');
  });
});

describe('checkTopics (KAFKA_MANAGE_TOPICS=false)', () => {
  it('names every topic that is missing, has too few partitions or too small a message limit, and changes nothing', async () => {
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: `${prefix}narrow`, numPartitions: 2, configEntries: [{ name: 'max.message.bytes', value: '1048588' }] }],
    });
    const problems = await checkTopics(kafka, [
      { topic: `${prefix}narrow`, numPartitions: 6 },
      { topic: `${prefix}absent`, numPartitions: 6 },
    ]).catch((err: Error) => err.message);
    expect(problems).toContain(`topic ${prefix}narrow has 2 partitions, needs 6+`);
    expect(problems).toContain(`topic ${prefix}narrow has max.message.bytes 1048588, needs >= ${TOPIC_MAX_MESSAGE_BYTES}`);
    expect(problems).toContain(`topic ${prefix}absent does not exist (needs 6+ partitions`);
    expect(await admin.listTopics()).not.toContain(`${prefix}absent`);
    expect((await topicConfig(`${prefix}narrow`)).get('max.message.bytes')).toBe('1048588');
  });

  it('passes topics that have what the services need', async () => {
    await ensureTopics(kafka, [{ topic: `${prefix}fresh`, numPartitions: 6 }]);
    await expect(checkTopics(kafka, [{ topic: `${prefix}fresh`, numPartitions: 6 }])).resolves.toBeUndefined();
  });
});
