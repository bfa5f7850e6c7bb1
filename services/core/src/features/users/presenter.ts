import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';
import { USER_COLUMNS } from './store.ts';

/** What leaves the core for a user (spec User, plus metadata and updatedAt): the allow-listed columns, null when unset. */
export function presentUser(row: Record<string, unknown>): JsonObject {
  return rowToJson(Object.fromEntries(USER_COLUMNS.map((c) => [c, row[c] ?? null])));
}
