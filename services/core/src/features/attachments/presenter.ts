import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for an attachment: the spec's fields and every registered field. */
export function presentAttachment(row: Record<string, unknown>): JsonObject {
  return rowToJson(row, { omit: ['organizationId', 'projectId'] });
}
