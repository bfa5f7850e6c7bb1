import kafkajs, { Kafka, Partitioners, logLevel, type Producer } from 'kafkajs';
import { saslOptions, type KafkaSecurity } from './auth.ts';

// The client of a process and its producer.

// Enums that Node's ESM loader cannot see as named exports of the CommonJS package.
export const { ConfigResourceTypes, ConfigSource } = kafkajs;

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
