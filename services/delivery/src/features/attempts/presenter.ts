import type { JsonObject } from '@bufbuild/protobuf';
import { DELIVERY_ATTEMPT_FIELDS } from '@cluster/contracts';
import { rowToJson } from '@cluster/platform';
import type { AttemptRow } from './store.ts';

/** What leaves the service for an entry of a delivery's attempt log. */
export function presentAttempt(row: AttemptRow): JsonObject {
  return rowToJson(row, { only: DELIVERY_ATTEMPT_FIELDS });
}
