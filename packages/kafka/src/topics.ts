// Topic names and the partitions and message size the services need of them.

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

/** Topic names without any prefix: what outbox rows store (see physicalTopic). */
export const LOGICAL_TOPICS = topicNames('');

/** A topic a service needs: its name and the fewest partitions it must have. */
export interface TopicNeed {
  topic: string;
  numPartitions?: number;
}

/** The cluster's topics (domain events, dead letters) under `prefix`, with the partitions the services need. */
export function clusterTopics(prefix: string): TopicNeed[] {
  const topics = topicNames(prefix);
  return [{ topic: topics.domainEvents, numPartitions: DOMAIN_EVENT_PARTITIONS }, { topic: topics.deliveryDeadLetter }];
}

/**
 * Largest message (record batch) our topics take: 4 MiB. An event can carry a
 * field as large as a request body (1 MiB: a comment), and Kafka's default of
 * about 1 MB would refuse it, stalling the in-order outbox relay behind it.
 */
export const TOPIC_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
