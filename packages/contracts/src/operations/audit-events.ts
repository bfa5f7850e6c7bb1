import { AuditEvent, AuditEventQuery } from '../resources/audit-events.ts';
import { ListOf } from '../resources/common.ts';
import type { Operation } from './operation.ts';

/** Audit events of the organization and of one project. */
export const auditEventOperations: Operation[] = [
  {
    method: 'GET',
    path: '/audit-events',
    summary: 'List audit events',
    tag: 'audit',
    operation: 'cluster.core.v1.AuditService/ListAuditEvents',
    tool: {
      name: 'list_audit_events',
      title: 'List audit events',
      description: 'The audit trail of writes, newest first, with filters.',
    },
    permission: 'read:audit',
    query: AuditEventQuery,
    response: { status: 200, schema: ListOf(AuditEvent) },
  },
  {
    method: 'GET',
    path: '/projects/:id/audit-events',
    summary: 'List audit events of a project',
    tag: 'audit',
    operation: 'cluster.core.v1.AuditService/ListAuditEvents',
    tool: false,
    permission: 'read:audit',
    query: AuditEventQuery,
    response: { status: 200, schema: ListOf(AuditEvent) },
  },
];
