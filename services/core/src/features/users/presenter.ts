import type { JsonObject } from '@bufbuild/protobuf';
import { USER_FIELDS } from '@cluster/contracts';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for a user (spec User, plus metadata and updatedAt): the allow-listed columns, null when unset. */
export function presentUser(row: Record<string, unknown>): JsonObject {
  return rowToJson(Object.fromEntries(USER_FIELDS.map((c) => [c, row[c] ?? null])));
}
