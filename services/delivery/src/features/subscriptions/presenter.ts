import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';
import type { SubscriptionRow } from './store.ts';

/** Public fields of a subscription (spec "Webhook subscription", plus updatedAt). The secret is not among them. */
export const SUBSCRIPTION_FIELDS = ['id', 'destinationUrl', 'eventNames', 'enabled', 'description', 'createdAt', 'updatedAt'] as const;

/** What leaves the service for a subscription: never the sealed secret. */
export function presentSubscription(row: SubscriptionRow): JsonObject {
  return rowToJson(row, { only: SUBSCRIPTION_FIELDS });
}
