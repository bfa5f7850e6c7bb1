import type { Knex } from '@cluster/db';

/** An audit record of a write made by the system or an operator (admin CLI), not through an API key. */
export interface SystemAuditRecord {
  organizationId: string;
  projectId?: string | null;
  entityType: string;
  action: string;
  entityId: string;
  entityName?: string | null;
}

/** Writes the audit event of an admin-CLI write in the caller's transaction (actorId null, actorType admin_cli). */
export async function systemAudit(trx: Knex.Transaction, rec: SystemAuditRecord): Promise<void> {
  await trx('audit_events').insert({
    organizationId: rec.organizationId,
    projectId: rec.projectId ?? null,
    entityType: rec.entityType,
    action: rec.action,
    entityId: rec.entityId,
    entityName: rec.entityName ?? null,
    actorId: null,
    metadata: JSON.stringify({ actorType: 'admin_cli' }),
  });
}
