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
    permission: 'read:audit',
    query: AuditEventQuery,
    response: { status: 200, schema: ListOf(AuditEvent) },
    handler: async (input) => list(await input.clients.audit.listAuditEvents(listArgs(input))),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/audit-events',
    summary: 'List audit events of a project',
    tag: 'audit',
    permission: 'read:audit',
    query: AuditEventQuery,
    response: { status: 200, schema: ListOf(AuditEvent) },
    handler: async (input) => list(await input.clients.audit.listAuditEvents(listArgs(input, input.params.id))),
  }),
];
