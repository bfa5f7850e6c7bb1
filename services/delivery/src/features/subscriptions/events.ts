import type { EmittedEventName } from '@cluster/contracts';
import type { ActorEvent } from '../../shared/write.ts';
import type { SubscriptionRow } from './store.ts';

/** webhook.subscription.failing: the subscription and its run of failures. */
export function subscriptionFailingEvent(row: SubscriptionRow): ActorEvent {
  const e = subscriptionEvent('webhook.subscription.failing', row);
  return { ...e, payload: { ...e.payload, consecutiveFailures: row.consecutiveFailures, failingSince: row.failingSince } };
}

/** webhook.subscription.disabled: the subscription as the service disabled it, and why. */
export function subscriptionDisabledEvent(row: SubscriptionRow): ActorEvent {
  const e = subscriptionEvent('webhook.subscription.disabled', row);
  return {
    ...e,
    payload: {
      ...e.payload,
      disabledReason: row.disabledReason,
      consecutiveFailures: row.consecutiveFailures,
      failingSince: row.failingSince,
    },
  };
}

/** webhook.subscription.created / .deleted: the subscription as it is (never its secret). */
export function subscriptionEvent(eventName: EmittedEventName, row: SubscriptionRow): ActorEvent {
  return {
    eventName,
    entityType: 'webhook_subscription',
    entityId: row.id,
    projectId: null,
    payload: {
      subscriptionId: row.id,
      destinationUrl: row.destinationUrl,
      eventNames: row.eventNames,
      enabled: row.enabled,
      description: row.description ?? null,
    },
  };
}
