import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';
import { MEMBER_COLUMNS } from './store.ts';

/** What leaves the core for a project member (spec ProjectMember): its columns, null when unset. */
export function presentMember(row: Record<string, unknown>): JsonObject {
  return rowToJson(Object.fromEntries(MEMBER_COLUMNS.map((c) => [c, row[c] ?? null])));
}
