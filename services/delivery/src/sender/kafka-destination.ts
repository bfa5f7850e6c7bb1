import tls from 'node:tls';
import { Kafka, logLevel, type Producer, type SASLOptions } from 'kafkajs';
import {
  createConnectionCache,
  describeError,
  failure,
  guardedSocket,
  settingsKey,
  within,
  type Destination,
  type DestinationOptions,
  type KafkaDestination,
} from './destination.ts';

/**
 * Deliveries to the customer's Kafka topic (docs/webhooks.md, "Kafka"): one producer (acks=all) per destination, kept while used and closed after `idleMs` unused or when its settings change.
 * The message key is the event's entity id, so one entity's events land on one partition, in the order
 * the subscription's ordering releases them. The value is the stored body; the headers carry the signature.
 */
export function createKafkaDestination(opts: DestinationOptions): Destination<KafkaDestination> {
  const producers = createConnectionCache<Producer>({
    idleMs: opts.idleMs ?? 60_000,
    close: (p) => p.disconnect(),
  });

  const open = async (subscriptionId: string, d: KafkaDestination): Promise<Producer> => {
    const sasl: SASLOptions | undefined = d.sasl
      ? { mechanism: d.sasl.mechanism, username: d.sasl.username, password: d.sasl.password }
      : undefined;
    const ssl: tls.ConnectionOptions | undefined = d.tls
      ? d.tls.ca
        ? { ca: [...tls.getCACertificates('default'), d.tls.ca] }
        : {}
      : undefined;
    const kafka = new Kafka({
      clientId: `webhook-${subscriptionId}`,
      brokers: d.brokers,
      ssl: ssl ?? false,
      sasl,
      connectionTimeout: Math.min(opts.timeoutMs, 10_000),
      authenticationTimeout: opts.timeoutMs,
      requestTimeout: opts.timeoutMs,
      // One quick retry inside an attempt; the delivery's own schedule does the rest.
      retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 500 },
      logLevel: logLevel.NOTHING,
      socketFactory: ({ host, port, ssl: socketTls, onConnect }) =>
        guardedSocket({ host, port, tls: socketTls ? socketTls : null, onConnect }, opts.allowPrivate),
    });
    const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 1, initialRetryTime: 100 } });
    await within(opts.timeoutMs, 'connecting to the Kafka brokers', producer.connect()).catch(async (err) => {
      await producer.disconnect().catch(() => {});
      throw err;
    });
    return producer;
  };

  return {
    async send(d, m) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const key = settingsKey(m.subscriptionId, d);
      let producer: Producer | undefined;
      try {
        producer = await producers.get(key, () => open(m.subscriptionId, d));
        const [meta] = await within(
          opts.timeoutMs,
          `no acknowledgement from Kafka`,
          producer.send({
            topic: d.topic,
            acks: -1,
            timeout: opts.timeoutMs,
            messages: [{ key: m.key, value: m.body, headers: m.headers }],
          }),
        );
        const where = meta ? `partition ${meta.partition} offset ${meta.baseOffset ?? meta.offset ?? '?'}` : 'acknowledged';
        return { ok: true, responseCode: null, responseBody: `kafka: ${d.topic} ${where}`, error: null, durationMs: elapsed() };
      } catch (err) {
        // A producer that failed may hold a broken connection or stale metadata: the next attempt opens another.
        if (producer) producers.drop(key, producer);
        return failure(`kafka: ${describeError(err)}`, elapsed());
      }
    },
    close: () => producers.closeAll(),
  };
}
