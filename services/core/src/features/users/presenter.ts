import type { JsonObject } from '@bufbuild/protobuf';
import { USER_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { UserRow } from './store.ts';

/** What leaves the core for a user (spec User, plus metadata and updatedAt): USER_FIELDS, null when unset. */
export function presentUser(row: UserRow): JsonObject {
  return presentFields(row, USER_FIELDS);
}
