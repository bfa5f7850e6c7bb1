import type { JsonObject } from '@bufbuild/protobuf';
import { WEBHOOK_FIELDS } from '@cluster/contracts';
import { rowToJson } from '@cluster/platform';
import type { SubscriptionRow } from './store.ts';

/** What leaves the service for a subscription: the contract's WEBHOOK_FIELDS, never the sealed secret. */
export function presentSubscription(row: SubscriptionRow): JsonObject {
  return rowToJson(row, { only: WEBHOOK_FIELDS });
}
