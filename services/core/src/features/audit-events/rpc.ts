import type { ServiceImpl } from '@connectrpc/connect';
import { bodyOf, jsonPage, pageArgs, requestContext } from '@cluster/platform';
import type { AuditService } from '@cluster/proto';
import type { createAuditEventService } from './service.ts';

/** AuditService over Connect: lists the trail, and records the audit events other services report. */
export function auditEventRpc(auditEvents: ReturnType<typeof createAuditEventService>): ServiceImpl<typeof AuditService> {
  return {
    async listAuditEvents(req) {
      return jsonPage(await auditEvents.list(req.actor, req.parentId || undefined, bodyOf(req.query), pageArgs(req)));
    },
    async recordAuditEvent(req) {
      // The service whose token opened the call (service-auth.ts), never a field of the message.
      await auditEvents.record(req.actor, requestContext.getStore()?.caller, {
        id: req.id,
        occurredAt: req.occurredAt,
        entityType: req.entityType,
        action: req.action,
        entityId: req.entityId,
        entityName: req.entityName ?? null,
        metadata: bodyOf(req.metadata),
      });
      return {};
    },
  };
}
