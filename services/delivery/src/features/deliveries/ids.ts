import { v5 as uuidv5 } from 'uuid';

/** The namespace of delivery ids (RFC 9562 name-based UUIDs); changing it would change every id. */
const DELIVERY_NAMESPACE = '6f1c2e0a-5b7d-4c3e-9a8f-2d4b6e8f0a1c';

/**
 * The id of the delivery of one domain event to one subscription: a name-based
 * UUID of the pair, so every fan-out of that event to that subscription (a
 * re-read Kafka message, another replica, a restart) arrives at the same id. The
 * primary key therefore makes the fan-out idempotent, and any duplicate a
 * receiver sees carries a delivery id it has already seen.
 */
export function deliveryIdFor(eventId: string, subscriptionId: string): string {
  return uuidv5(`${eventId}/${subscriptionId}`, DELIVERY_NAMESPACE);
}
