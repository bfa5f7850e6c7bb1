import type { EventEnvelope, WebhookEnvelope } from '@cluster/contracts';

/**
 * Derives a subscriber's envelope (WebhookEnvelope, @cluster/contracts) from a domain
 * event: the event without its routing fields, nothing internal, under the delivery id.
 */
export function webhookEnvelope(deliveryId: string, event: EventEnvelope): WebhookEnvelope {
  return {
    id: deliveryId,
    eventName: event.eventName,
    schemaVersion: 1,
    entityType: event.entityType,
    entityId: event.entityId,
    occurredAt: event.occurredAt,
    actorUserId: event.actorUserId ?? null,
    payload: event.payload ?? {},
  };
}
