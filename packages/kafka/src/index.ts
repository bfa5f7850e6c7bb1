// @cluster/kafka: the one package that imports the Kafka client (docs/decisions.md: kafkajs 2.2.4 on
// Kafka 3.9.1), a module per job; this file only re-exports. The patch of kafkajs' request queue is
// applied first, before any client exists.
import './request-queue-fix.ts';

export type { Consumer, Producer, Admin, KafkaMessage, EachBatchPayload } from 'kafkajs';
export {
  ConfigResourceTypes,
  ConfigSource,
  createKafka,
  createProducer,
  type KafkaLogSink,
  type KafkaOptions,
} from './client.ts';
export { oauthTokenProvider, type KafkaSecurity } from './auth.ts';
export {
  clusterTopics,
  DOMAIN_EVENT_PARTITIONS,
  LOGICAL_TOPICS,
  physicalTopic,
  TOPIC_MAX_MESSAGE_BYTES,
  topicNames,
  type TopicNeed,
} from './topics.ts';
export { checkTopics, ensureClusterTopics, ensureTopics, TopicsNotReadyError } from './provisioning.ts';
export { kafkaStartProblem, pingKafka } from './diagnosis.ts';
