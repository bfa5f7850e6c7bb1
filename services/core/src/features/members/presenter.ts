import type { JsonObject } from '@bufbuild/protobuf';
import { MEMBER_FIELDS } from '@cluster/contracts';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for a project member (spec ProjectMember): its columns, null when unset. */
export function presentMember(row: Record<string, unknown>): JsonObject {
  return rowToJson(Object.fromEntries(MEMBER_FIELDS.map((c) => [c, row[c] ?? null])));
}
