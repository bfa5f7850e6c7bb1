import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for a release: every field but the internal once-only flag. */
export function presentRelease(row: Record<string, unknown>): JsonObject {
  return rowToJson(row, { omit: ['organizationId', 'releasedEventSent'] });
}
