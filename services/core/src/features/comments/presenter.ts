import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for a comment: the spec's fields (content is answered as `body`) plus the flags. */
export function presentComment(row: Record<string, unknown>): JsonObject {
  return rowToJson(row, { omit: ['organizationId', 'projectId'] });
}
