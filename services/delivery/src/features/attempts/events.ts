import type { AttemptRecord, DeadLetterMessage } from './store.ts';

/**
 * The message of a delivery given up on, for the dead-letter topic: the envelope
 * the receiver would have got (the delivery's exact body), with the last error.
 */
export function deadLetterMessage(item: AttemptRecord, deadLetteredAt = new Date()): DeadLetterMessage {
  const { delivery, result, attemptedAt } = item;
  return {
    id: delivery.id,
    eventName: delivery.eventName,
    deliveryId: delivery.id,
    subscriptionId: delivery.subscriptionId,
    organizationId: delivery.organizationId,
    destinationUrl: delivery.destinationUrl,
    attempts: delivery.attempts + 1,
    firstAttemptAt: new Date(delivery.firstAttemptAt ?? attemptedAt).toISOString(),
    deadLetteredAt: deadLetteredAt.toISOString(),
    lastError: { error: result.error, responseCode: result.responseCode, responseBody: result.responseBody },
    envelope: JSON.parse(delivery.body) as unknown,
  };
}
