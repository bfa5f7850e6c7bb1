import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for an integration link: the spec's fields plus updatedAt. */
export function presentLink(row: Record<string, unknown>): JsonObject {
  return rowToJson(row, { omit: ['projectId'] });
}
