import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for an audit event: the spec's AuditEvent. */
export function presentAuditEvent(row: Record<string, unknown>): JsonObject {
  return rowToJson(row, { omit: ['organizationId', 'projectId'] });
}
