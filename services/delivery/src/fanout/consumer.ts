import { eventFromKafkaMessage, eventMessageFormat, type EventEnvelope } from '@cluster/contracts';
import type { Consumer } from '@cluster/kafka';
import type { Logger } from '@cluster/platform';
import type { DeliveryMetrics } from '../metrics.ts';
import type { Stores } from '../stores.ts';
import { createConsumerLag } from './consumer-lag.ts';
import { fanOut, type Handoff } from './fanout.ts';

/** A W3C traceparent header value (version 00). */
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** What the fan-out consumer is made of. */
export interface FanoutConsumerOptions {
  /** Makes a consumer of the group; called again when one crashed for good. */
  createConsumer: () => Consumer;
  topic: string;
  /** Subscriptions to match, deliveries to write. */
  stores: Pick<Stores, 'subscriptions' | 'deliveryQueue'>;
  metrics: DeliveryMetrics;
  logger: Logger;
  /** Called after new deliveries were written that the local delivery loop did not take (wakes it to claim). */
  onDeliveries: () => void;
  /** This process's id in due-notifications (its own delivery loop is woken directly). */
  instanceId: string;
  /** Tolerated clock skew between an event's occurredAt and a subscription's createdAt. */
  clockSkewMs: number;
  /** The local delivery loop, which takes new deliveries without a claim round trip. */
  handoff?: Handoff;
}

/** The fan-out stage: a Kafka consumer group on the domain-event topic. */
export interface FanoutConsumer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** False after the consumer crashed without restarting. */
  healthy(): boolean;
}

/**
 * Consumes domain events in batches and fans them out. Offsets are committed
 * only after the batch's deliveries are in Postgres, so a crash re-reads rather
 * than loses; receivers never run inside this loop (sending is the dispatcher's), so
 * a slow or failing receiver cannot stall or poison a partition. Only our own
 * database failing makes a batch be read again. A message is a CloudEvent or, from a
 * producer of before that move, the old envelope (eventFromKafkaMessage reads both);
 * unparseable messages are counted and skipped. kafkajs restarts a consumer after
 * retriable crashes only; after any other crash this supervisor starts a fresh
 * consumer, so the stage never stays down while the process lives.
 */
export function createFanoutConsumer(opts: FanoutConsumerOptions): FanoutConsumer {
  const { metrics, logger } = opts;
  // Healthy once it has joined its group (a start while Kafka is down has not).
  let healthy = false;
  let stopping = false;
  let consumer: Consumer;
  let restartTimer: NodeJS.Timeout | undefined;
  const lag = createConsumerLag(metrics.consumerLag);

  const restart = () => {
    if (stopping) return;
    restartTimer = setTimeout(() => {
      void run().catch((err) => {
        logger.warn({ err }, 'fan-out consumer could not restart; trying again');
        restart();
      });
    }, 1000);
  };

  async function run(): Promise<void> {
    consumer = opts.createConsumer();
    consumer.on(consumer.events.CRASH, (e) => {
      healthy = e.payload.restart;
      logger.warn({ err: e.payload.error, restart: e.payload.restart }, 'fan-out consumer crashed');
      if (!e.payload.restart) restart();
    });
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      healthy = true;
      // After a rebalance, partitions that went to another replica stop being reported here.
      lag.assigned(e.payload.memberAssignment[opts.topic]);
    });
    consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
      lag.set(e.payload.partition, Number(e.payload.offsetLag));
    });
    const current = consumer;
    try {
      await current.connect();
      await current.subscribe({ topic: opts.topic, fromBeginning: true });
    } catch (err) {
      // Kafka down or the topic not made yet: the caller tries again with a fresh consumer.
      await current.disconnect().catch(() => {});
      throw err;
    }
    await current.run({
      partitionsConsumedConcurrently: 3,
      // Offsets are committed at most once a second (and on stop and rebalance), not after
      // every batch: under load that is one broker request per batch saved. A crash re-reads
      // at most a second of events, which the derived delivery ids make harmless.
      autoCommitInterval: 1000,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        const events: EventEnvelope[] = [];
        // The trace each event was written in: its deliveries' attempts continue it (docs/decisions.md, tracing).
        const traceparents = new Map<EventEnvelope, string>();
        for (const m of batch.messages) {
          try {
            // A CloudEvent, or the envelope of a producer (or an outbox row) from before the move.
            const parsed = eventFromKafkaMessage(m.headers, m.value);
            metrics.eventsConsumed.inc({ format: eventMessageFormat(m.headers) });
            events.push(parsed);
            const traceparent = m.headers?.traceparent?.toString();
            if (traceparent && TRACEPARENT.test(traceparent)) traceparents.set(parsed, traceparent);
          } catch {
            metrics.poisonMessages.inc();
            logger.error({ partition: batch.partition, offset: m.offset }, 'unparseable domain event skipped');
          }
        }
        if (!isRunning() || isStale()) return;
        const { created, handedOff, filtered } = await fanOut(opts.stores, events, {
          notifier: opts.instanceId,
          clockSkewMs: opts.clockSkewMs,
          handoff: opts.handoff,
          traceparentOf: (e) => traceparents.get(e),
        });
        if (created) metrics.fannedOut.inc(created);
        if (filtered) metrics.filteredOut.inc(filtered);
        // Deliveries the local delivery loop did not take wait in the table: let it claim them.
        if (created > handedOff) opts.onDeliveries();
        const last = batch.messages[batch.messages.length - 1];
        if (last) resolveOffset(last.offset);
        await heartbeat();
      },
    });
  }

  return {
    start: run,
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      await consumer?.disconnect();
    },
    healthy: () => healthy,
  };
}
