import './request-queue-fix.ts';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import kafkajs, {
  Kafka,
  Partitioners,
  logLevel,
  type Consumer,
  type Producer,
  type Admin,
  type KafkaMessage,
  type EachBatchPayload,
  type SASLOptions,
  type Mechanism,
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
  /** TLS and SASL (readKafkaConfig's kafkaSecurity); plaintext without. */
  security?: KafkaSecurity;
}

/** TLS and SASL of the connections to the brokers, as readKafkaConfig (@cluster/platform) reads them. */
export interface KafkaSecurity {
  /** false: plaintext. Otherwise TLS verified against `ca` (PEM) or Node's trusted CAs; `cert` and `key`: mutual TLS. */
  tls: false | { ca?: string; cert?: string; key?: string };
  sasl?:
    | { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string }
    | { mechanism: 'oauthbearer'; tokenFile?: string; tokenCommand?: string };
}

function saslOptions(sasl: NonNullable<KafkaSecurity['sasl']>): SASLOptions | Mechanism {
  if (sasl.mechanism === 'oauthbearer') return oauthBearerMechanism(oauthTokenProvider(sasl));
  const withPassword: SASLOptions = sasl;
  return withPassword;
}

const run = promisify(execFile);

/**
 * The OAUTHBEARER token, fetched again each time the client authenticates (a new connection, or
 * a re-authentication when the broker's session ends): from a file a sidecar or the platform keeps
 * fresh, or from a command's standard output (say a cloud CLI printing a token). Neither is cached,
 * so a refreshed token is used at the next authentication.
 */
export function oauthTokenProvider(source: { tokenFile?: string; tokenCommand?: string }): () => Promise<string> {
  return async () => {
    const raw = source.tokenFile
      ? await readFile(source.tokenFile, 'utf8')
      : (await run('/bin/sh', ['-c', source.tokenCommand ?? 'false'], { timeout: 30_000 })).stdout;
    const value = raw.trim();
    if (!value) throw new Error(`the OAuth token ${source.tokenFile ? `file ${source.tokenFile}` : 'command'} gave no token`);
    return value;
  };
}

// Its typings omit the constructor's message; the class is what kafkaStartProblem and kafkajs' retries recognise.
const SaslAuthenticationError = (kafkajs as unknown as { KafkaJSSASLAuthenticationError: new (message: string) => Error })
  .KafkaJSSASLAuthenticationError;

/** A SASL message: a 32-bit length, then the bytes (the framing of kafkajs' encoder). */
const framed = (text: string) => {
  const body = Buffer.from(text);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length);
  return Buffer.concat([length, body]);
};

/**
 * SASL/OAUTHBEARER (RFC 7628) in place of kafkajs' own, which takes the broker's refusal of a token
 * for a success: Kafka answers a bad or expired token with an error document (`{"status":"invalid_token"}`)
 * in place of an empty reply, then closes the connection, and kafkajs retries in a loop of
 * "authentication successful". Here that answer is a refused login, which the start reports.
 */
function oauthBearerMechanism(token: () => Promise<string>): Mechanism {
  return {
    mechanism: 'oauthbearer',
    authenticationProvider: ({ host, port, saslAuthenticate }) => ({
      async authenticate() {
        const request = { encode: async () => framed(`n,,\u0001auth=Bearer ${await token()}\u0001\u0001`) };
        // The reply is framed as the request is: empty on success, an error document on refusal.
        const response = { decode: async (bytes: Buffer) => bytes, parse: (bytes: Buffer) => bytes.subarray(4).toString() };
        const refusal = await saslAuthenticate<string>({ request, response });
        if (refusal)
          throw new SaslAuthenticationError(
            `SASL OAUTHBEARER authentication failed at ${host}:${port}: the broker answered ${refusal}`,
          );
      },
    }),
  };
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
    ssl: opts.security?.tls || undefined,
    sasl: opts.security?.sasl && saslOptions(opts.security.sasl),
  });
}

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

/**
 * Largest message (record batch) our topics take: 4 MiB. An event can carry a
 * field as large as a request body (1 MiB: a comment), and Kafka's default of
 * about 1 MB would refuse it, stalling the in-order outbox relay behind it.
 */
export const TOPIC_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

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

/** Codes of a TLS handshake that failed on the server's certificate (Node's, from OpenSSL). */
const CERTIFICATE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Broker answers that only a change of credentials or ACLs fixes. */
const AUTHORIZATION_TYPES = new Set([
  'TOPIC_AUTHORIZATION_FAILED',
  'GROUP_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'SASL_AUTHENTICATION_FAILED',
  'UNSUPPORTED_SASL_MECHANISM',
  'ILLEGAL_SASL_STATE',
]);

/**
 * Why a Kafka call failed for good, or undefined when retrying may help (a broker down, a leader
 * moving): a refused login, a certificate that does not verify, a missing ACL, topics this process
 * may not create. A start that meets one stops with this reason instead of retrying in the
 * background for ever. Looks through kafkajs' wrappers (a retry that gave up keeps its cause).
 */
export function kafkaStartProblem(err: unknown): string | undefined {
  for (
    let e = err as
        { name?: string; message?: string; code?: string; type?: string; cause?: unknown; originalError?: unknown } | undefined,
      depth = 0;
    e && depth < 10;
    depth++
  ) {
    if (e.name === 'TopicsNotReadyError') return e.message;
    if (e.name === 'KafkaJSSASLAuthenticationError')
      return `the broker refused the login (KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD): ${e.message}`;
    if (e.code && CERTIFICATE_CODES.has(e.code))
      return `the broker's TLS certificate did not verify (${e.code}; is KAFKA_SSL_CA_FILE the CA that signed it?): ${e.message}`;
    if (e.type && AUTHORIZATION_TYPES.has(e.type))
      return `the broker refused (${e.type}; check the principal's ACLs): ${e.message}`;
    e = (e.cause ?? e.originalError) as typeof e;
  }
  return undefined;
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
