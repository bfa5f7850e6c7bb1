import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for a project: every field of the spec's bodies, not its internal counters. */
export function presentProject(row: Record<string, unknown>): JsonObject {
  return rowToJson(row, { omit: ['entryCounter', 'searchVector'] });
}
