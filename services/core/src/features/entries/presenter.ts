import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for an entry: the spec's fields and every body field, plus creatorId. */
export function presentEntry(row: Record<string, unknown>): JsonObject {
  return rowToJson(row, { omit: ['organizationId'] });
}
