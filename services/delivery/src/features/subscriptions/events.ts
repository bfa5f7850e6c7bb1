import type { EmittedEventName } from '@cluster/contracts';
import type { ActorEvent } from '../../shared/write.ts';
import type { SubscriptionRow } from './store.ts';

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
