import type { Logger } from '@cluster/platform';
import type { DeliveryMetrics } from '../../metrics.ts';
import { outcomeOf } from './service.ts';
import type { AttemptRecord } from './store.ts';

// What follows every attempt sent to a receiver, whoever sent it: the delivery loop
// (dispatch/dispatcher.ts), a redelivery (features/recovery) and a test call
// (features/test-calls) sign and send (sender/attempt-delivery.ts), decide the next step
// (service.ts), then hand the attempt here. They depend on this module; it depends on none of them.

/** Where an attempt's outcome goes besides the attempt log. */
export interface AttemptOutcomePorts {
  /**
   * Writes the attempt and the delivery's next step, fenced by the lease: the delivery loop's batching
   * recorder (recorder.ts), or the store's one-row write. Resolves false when the lease was lost.
   */
  record(item: AttemptRecord): Promise<boolean>;
  metrics: Pick<DeliveryMetrics, 'deliveries' | 'attemptDuration'> & Partial<Pick<DeliveryMetrics, 'deadLetters'>>;
  /** Disables a subscription whose endpoint answered 410 Gone (subscriptions/health.ts); true when it did. */
  onGone?(subscriptionId: string): Promise<boolean>;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

/**
 * Records an attempt's outcome: its duration observed, the attempt and the delivery's next step
 * written, then (only while this replica held the lease) the outcome counted, the subscription of a
 * 410 Gone disabled, and a dead letter counted and logged. Resolves false when the lease was lost
 * (another replica owns the delivery: nothing more is done); rejects when the write failed (the
 * lease expires and the delivery is attempted again, same delivery id). A failure to disable after a
 * 410 is logged, not thrown: the attempt is recorded, and the next 410 disables the subscription.
 */
export async function recordAttemptOutcome(ports: AttemptOutcomePorts, item: AttemptRecord): Promise<boolean> {
  const { delivery, result, decision } = item;
  const { metrics, logger } = ports;
  metrics.attemptDuration.observe({ outcome: result.ok ? 'succeeded' : 'failed' }, result.durationMs / 1000);
  if (!(await ports.record(item))) {
    logger?.warn({ deliveryId: delivery.id }, 'lease lost before the attempt was recorded; another replica owns the delivery');
    return false;
  }
  metrics.deliveries.inc({ outcome: outcomeOf(decision) });
  if (decision.kind === 'gone' && ports.onGone) {
    // Recorded first: a crash in between leaves the delivery failed, and the next 410 disables the subscription.
    await ports.onGone(delivery.subscriptionId).then(
      (disabled) =>
        disabled &&
        logger?.warn({ subscriptionId: delivery.subscriptionId }, 'endpoint answered 410 Gone: subscription disabled'),
      (err: unknown) =>
        logger?.error({ err, subscriptionId: delivery.subscriptionId }, 'could not disable a subscription after 410 Gone'),
    );
  }
  if (decision.kind === 'dead_letter') {
    metrics.deadLetters?.inc();
    logger?.warn(
      { deliveryId: delivery.id, subscriptionId: delivery.subscriptionId, attempts: delivery.attempts + 1, error: result.error },
      'delivery dead-lettered',
    );
  }
  return true;
}
