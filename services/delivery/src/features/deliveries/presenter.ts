import type { JsonObject } from '@bufbuild/protobuf';
import { DELIVERY_FIELDS } from '@cluster/contracts';
import { rowToJson } from '@cluster/platform';
import { presentAttempt } from '../attempts/presenter.ts';
import type { AttemptRow } from '../attempts/store.ts';
import type { DeliveryRecord } from './rows.ts';

/** What leaves the service for a delivery: never the body's signature or the lease. */
export function presentDelivery(row: DeliveryRecord): JsonObject {
  return rowToJson(row, { only: DELIVERY_FIELDS });
}

/** A delivery with its attempt log (GET /webhooks/:id/deliveries/:deliveryId). */
export function presentDeliveryWithAttempts(row: DeliveryRecord, attempts: AttemptRow[]): JsonObject {
  return { ...presentDelivery(row), attemptLog: attempts.map(presentAttempt) };
}
