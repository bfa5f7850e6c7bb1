import { Type } from '@sinclair/typebox';
import { DateTime, ListQuery, Nullable, Uuid, propertiesOf } from './common.ts';

/** Filters of the audit event lists, each an exact match on its column. */
export const AUDIT_EVENT_FILTERS = ['entityType', 'action', 'actorId'] as const;
/** Every field of an answered audit event (the spec's AuditEvent), in the table's column order. */
export const AUDIT_EVENT_FIELDS = [
  'id',
  'entityType',
  'action',
  'entityId',
  'entityName',
  'actorId',
  'metadata',
  'createdAt',
] as const;

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

/** Query schemas of the audit event filters. */
export const AuditEventFilters = propertiesOf(AUDIT_EVENT_FILTERS)({
  entityType: Type.String(),
  action: Type.String(),
  actorId: Uuid,
});
/** Query of both audit event lists. */
export const AuditEventQuery = ListQuery(AuditEventFilters);
