import { Counter, Gauge, Histogram } from 'prom-client';
import { sqlGauge, type Metrics } from '@cluster/platform';
import type { DeliveryQueueStore } from './features/deliveries/queue-store.ts';

/**
 * The delivery service's own metrics, on the process registry with its prefix:
 * what an SRE needs to explain a backlog and to alert on receivers giving up
 * (dead letters) apart from our own bugs (poison messages, which must stay 0).
 */
export interface DeliveryMetrics {
  /** Attempts by outcome: succeeded, failed (retry scheduled or stopped), dead_letter. */
  deliveries: Counter<'outcome'>;
  attemptDuration: Histogram<'outcome'>;
  /** Seconds from an event's occurrence to its delivery's first attempt (the webhook delivery SLO). */
  firstAttemptDelay: Histogram;
  deadLetters: Counter;
  fannedOut: Counter;
  /** Events a subscription's filter kept back (docs/webhooks.md, "Filters"). */
  filteredOut: Counter;
  poisonMessages: Counter;
  /** Domain events read, by message shape (`format`): the old envelope's count staying flat ends the transition. */
  eventsConsumed: Counter<'format'>;
  inFlight: Gauge;
  claimDuration: Histogram;
  claimed: Histogram;
  handedOff: Counter;
  /** Finished deliveries deleted one by one by the retention sweeper (those outside the weekly partitions). */
  pruned: Counter;
  /** Weekly partitions of the delivery log created ahead, and dropped past the retention (migration 018). */
  partitionsCreated: Counter;
  partitionsDropped: Counter;
  /** Unfinished deliveries moved out of a partition being dropped, to the default partition. */
  partitionRowsKept: Counter;
  consumerLag: Gauge<'partition'>;
  /**
   * Throttling (docs/webhooks.md, "Throttling"): `retry_after`, attempts a receiver answered 429/503 with
   * Retry-After (each pauses its subscription); `rate_limit`, deliveries held for their subscription's rate slot.
   */
  throttled: Counter<'reason'>;
}

/** Registers the delivery metrics; the backlog gauges read `deliveries` when scraped. */
export function createDeliveryMetrics(
  metrics: Metrics,
  deliveries: Pick<DeliveryQueueStore, 'countScheduled' | 'oldestScheduledAt' | 'oldestUnservedDueAt' | 'countPaused'>,
): DeliveryMetrics {
  const p = metrics.prefix;
  const registers = [metrics.registry];
  // Read by the process's SQL-gauge sampler (sqlGauge): at most once per 5 s and one query at a time,
  // so that scrapes never take more than one of the pool's connections from the sends.
  sqlGauge(metrics, {
    name: `${p}webhook_retry_backlog`,
    help: 'Deliveries that failed at least once and wait for a scheduled retry.',
    read: () => deliveries.countScheduled('failed').catch(() => 0),
  });
  sqlGauge(metrics, {
    name: `${p}webhook_pending_deliveries`,
    help: 'Deliveries not yet attempted.',
    read: () => deliveries.countScheduled('pending').catch(() => 0),
  });
  sqlGauge(metrics, {
    name: `${p}webhook_oldest_pending_age_seconds`,
    help: 'Age of the oldest delivery that is not finished yet (pending or waiting for a retry).',
    read: async () => {
      const oldest = await deliveries.oldestScheduledAt().catch(() => null);
      return oldest ? Math.max(0, (Date.now() - new Date(oldest).getTime()) / 1000) : 0;
    },
  });
  sqlGauge(metrics, {
    name: `${p}webhook_oldest_overdue_age_seconds`,
    help:
      'How long the oldest due delivery has waited past its due time, among destinations with no attempt in flight ' +
      "(the delivery loop's health: a receiver that is down or slow does not raise it).",
    read: async () => {
      const due = await deliveries.oldestUnservedDueAt().catch(() => null);
      return due ? Math.max(0, (Date.now() - new Date(due).getTime()) / 1000) : 0;
    },
  });
  sqlGauge(metrics, {
    name: `${p}webhook_paused_subscriptions`,
    help: 'Subscriptions paused now because their receiver answered 429 or 503 with Retry-After.',
    read: () => deliveries.countPaused().catch(() => 0),
  });
  return {
    throttled: new Counter({
      name: `${p}webhook_throttled_total`,
      help: "Throttling: retry_after, attempts a receiver answered 429/503 with Retry-After (its subscription paused); rate_limit, deliveries held for their subscription's rateLimit slot.",
      labelNames: ['reason'] as const,
      registers,
    }),
    deliveries: new Counter({
      name: `${p}webhook_deliveries_total`,
      help: 'Delivery attempts by outcome (succeeded, failed, dead_letter).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    attemptDuration: new Histogram({
      name: `${p}webhook_attempt_duration_seconds`,
      help: 'Latency of one POST to a receiver, by outcome.',
      labelNames: ['outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    firstAttemptDelay: new Histogram({
      name: `${p}webhook_first_attempt_delay_seconds`,
      help: "Seconds from an event's occurrence (its occurredAt) to the first attempt of each of its deliveries.",
      // 10 s is the SLO's threshold (docs/runbook.md, "Service level objectives"); the others show how far off.
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    }),
    deadLetters: new Counter({
      name: `${p}webhook_dead_letters_total`,
      help: 'Deliveries that exhausted their retries (a receiver problem, not ours).',
      registers,
    }),
    fannedOut: new Counter({
      name: `${p}webhook_fanout_deliveries_total`,
      help: 'Deliveries created from domain events (one per event and matching subscription).',
      registers,
    }),
    filteredOut: new Counter({
      name: `${p}webhook_filtered_events_total`,
      help: 'Events a subscription selected by name that its filter kept back (no delivery written).',
      registers,
    }),
    poisonMessages: new Counter({
      name: `${p}webhook_poison_messages_total`,
      help: 'Domain-event messages that could not be parsed and were skipped (our bug; must stay 0).',
      registers,
    }),
    eventsConsumed: new Counter({
      name: `${p}domain_events_consumed_total`,
      help: 'Domain-event messages read by the fan-out, by shape: cloudevents-binary, cloudevents-structured, or envelope (before the CloudEvents move).',
      labelNames: ['format'],
      registers,
    }),
    inFlight: new Gauge({
      name: `${p}webhook_in_flight`,
      help: 'Attempts in flight in this replica.',
      registers,
    }),
    claimDuration: new Histogram({
      name: `${p}webhook_claim_duration_seconds`,
      help: "Latency of one claim of due deliveries (the delivery loop's database round trip).",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    }),
    claimed: new Histogram({
      name: `${p}webhook_claim_size`,
      help: 'Deliveries taken by one claim.',
      buckets: [0, 1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers,
    }),
    handedOff: new Counter({
      name: `${p}webhook_handed_off_total`,
      help: "New deliveries the fan-out inserted under this replica's lease and gave its delivery loop directly (no claim).",
      registers,
    }),
    pruned: new Counter({
      name: `${p}webhook_deliveries_pruned_total`,
      help: 'Finished delivery records (with their attempt logs) deleted after the retention period.',
      registers,
    }),
    partitionsCreated: new Counter({
      name: `${p}webhook_partitions_created_total`,
      help: "Weekly partitions of the delivery log (deliveries and attempts) created ahead of their week by this replica's partition job.",
      registers,
    }),
    partitionsDropped: new Counter({
      name: `${p}webhook_partitions_dropped_total`,
      help: 'Weekly partitions of the delivery log dropped by the retention sweep once their whole week was past the retention.',
      registers,
    }),
    partitionRowsKept: new Counter({
      name: `${p}webhook_partition_rows_kept_total`,
      help: 'Unfinished deliveries (an attempt scheduled or in flight) moved to the default partition when their week was dropped.',
      registers,
    }),
    consumerLag: new Gauge({
      name: `${p}webhook_consumer_lag`,
      help: 'Messages of the domain-event topic not yet fanned out, per partition (after the last batch).',
      labelNames: ['partition'] as const,
      registers,
    }),
  };
}
