import type { EventEnvelope } from '@cluster/contracts';

/** The body a subscriber receives (spec "Envelope"); `id` is the delivery id. */
export interface WebhookEnvelope {
  id: string;
  eventName: string;
  schemaVersion: 1;
  entityType: string;
  entityId: string;
  occurredAt: string;
  actorUserId: string | null;
  payload: Record<string, unknown>;
}

/** Derives a subscriber's envelope from a domain event: the spec's eight fields, nothing internal. */
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
