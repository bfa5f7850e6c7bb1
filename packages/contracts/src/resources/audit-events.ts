import { Type } from '@sinclair/typebox';
import { DateTime, ListQuery, Nullable, Uuid, fieldsOf, propertiesOf } from './common.ts';

/** Filters of the audit event lists, each an exact match on its column. */
export const AUDIT_EVENT_FILTERS = ['entityType', 'action', 'actorId'] as const;
/** The spec's AuditEvent. */
export const AuditEvent = Type.Object({
  id: Uuid,
  entityType: Type.String(),
  action: Type.String(),
  entityId: Type.String(),
  entityName: Nullable(Type.String()),
  actorId: Nullable(Uuid),
  metadata: Nullable(Type.Object({}, { additionalProperties: true })),
  createdAt: DateTime,
});
/** Every field of an answered audit event, in order: AuditEvent's fields. */
export const AUDIT_EVENT_FIELDS = fieldsOf(AuditEvent);

/** Query schemas of the audit event filters. */
export const AuditEventFilters = propertiesOf(AUDIT_EVENT_FILTERS)({
  entityType: Type.String(),
  action: Type.String(),
  actorId: Uuid,
});
/** Query of both audit event lists. */
export const AuditEventQuery = ListQuery(AuditEventFilters);
