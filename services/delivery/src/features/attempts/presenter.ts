import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';
import { ATTEMPT_FIELDS, type AttemptRow } from './store.ts';

/** What leaves the service for an entry of a delivery's attempt log. */
export function presentAttempt(row: AttemptRow): JsonObject {
  return rowToJson(row, { only: ATTEMPT_FIELDS });
}
