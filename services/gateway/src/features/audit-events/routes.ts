import { AuditService } from '@cluster/proto';
import { AuditEvent, AuditEventQuery, ListOf } from '@cluster/contracts';
import { list, listArgs } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';

/** Audit events of the organization and of one project. */
export const auditEventRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/audit-events',
    summary: 'List audit events',
    tag: 'audit',
    service: AuditService,
    rpc: 'listAuditEvents',
    tool: {
      name: 'list_audit_events',
      title: 'List audit events',
      description: 'The audit trail of writes, newest first, with filters.',
    },
    permission: 'read:audit',
    query: AuditEventQuery,
    response: { status: 200, schema: ListOf(AuditEvent) },
    handler: async (input) => list(await input.call(listArgs(input))),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/audit-events',
    summary: 'List audit events of a project',
    tag: 'audit',
    service: AuditService,
    rpc: 'listAuditEvents',
    tool: false,
    permission: 'read:audit',
    query: AuditEventQuery,
    response: { status: 200, schema: ListOf(AuditEvent) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
];
