import type { JsonObject } from '@bufbuild/protobuf';
import { AUDIT_EVENT_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { AuditEventRow } from './store.ts';

/** What leaves the core for an audit event: the spec's AuditEvent (AUDIT_EVENT_FIELDS). */
export function presentAuditEvent(row: AuditEventRow): JsonObject {
  return presentFields(row, AUDIT_EVENT_FIELDS);
}
