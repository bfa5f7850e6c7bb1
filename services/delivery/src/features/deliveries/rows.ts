import type { DELIVERY_FIELDS, DELIVERY_STATUSES } from '@cluster/contracts';

/** A delivery status (the contract's DELIVERY_STATUSES, docs/decisions-api.md). */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * A row of delivery.deliveries as stored: every column of migrations 001, 004 (traceparent) and 008
 * (orderKey, orderSeq). The stores read it; presenters decide what leaves the service (DeliveryRecord).
 */
export type DeliveryRow = {
  /** Also the envelope id and X-Service-Delivery-Id, the same on every attempt. */
  id: string;
  organizationId: string;
  subscriptionId: string;
  /** The domain event's id (null for a test delivery). */
  eventId: string | null;
  eventName: string;
  /** The request body, serialised once at fan-out; every attempt signs and sends these bytes. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number | null;
  /** When the next attempt is due; null when none is scheduled (finished, stopped, or waiting its turn). */
  nextAttemptAt: Date | null;
  firstAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  /** The lease of the replica sending it now; an expired lease may be taken over. */
  lockedUntil: Date | null;
  leaseToken: string | null;
  test: boolean;
  /** The domain event's time (its occurredAt; now() for a test delivery): the partition key (migration 018). */
  createdAt: Date;
  updatedAt: Date;
  /** W3C trace context of the event, if it had one. */
  traceparent: string | null;
  /** For a subscription with ordering `per_entity`: `entityType:entityId`, and its place in that order. */
  orderKey: string | null;
  orderSeq: number | null;
  /** Attempts a receiver answered with Retry-After (migration 017): not steps of the backoff. */
  throttledAttempts?: number;
};

/** A delivery record as the API shows it: the columns of the contract's DELIVERY_FIELDS (never its body or lease). */
export type DeliveryRecord = Pick<DeliveryRow, (typeof DELIVERY_FIELDS)[number]>;
