import type { JsonObject } from '@bufbuild/protobuf';
import { WEBHOOK_FIELDS } from '@cluster/contracts';
import { rowToJson } from '@cluster/platform';
import type { SubscriptionRow } from './store.ts';

/**
 * What leaves the service for a subscription: the contract's WEBHOOK_FIELDS, never the sealed secret;
 * its custom headers and receiver auth as `receiverView` shows them (secrets masked, never opened here); its filter as saved.
 */
export function presentSubscription(row: SubscriptionRow): JsonObject {
  const view = row.receiverView;
  return rowToJson(
    { ...row, headers: view?.headers ?? {}, auth: view?.auth ?? null, filter: row.filter ?? null },
    { only: WEBHOOK_FIELDS },
  );
}
