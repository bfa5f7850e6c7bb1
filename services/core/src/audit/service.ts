import type { Knex } from '@cluster/db';
import { type Actor, requireActor, visibleRows } from '../lib/actor.ts';
import { toJson } from '../lib/json.ts';
import { audit, type AuditRecord } from '../outbox/record.ts';
import { paginate } from '../lib/list.ts';

const present = (row: Record<string, unknown>) => toJson(row, ['organizationId', 'projectId']);

/** Audit events: the organization's, or one project's; a project key sees only its project. */
export function createAuditService(db: Knex) {
  return {
    /** Records an audit event reported by another service for a write it made with this actor. */
    async record(actorIn: Actor | undefined, rec: AuditRecord): Promise<void> {
      const actor = requireActor(actorIn);
      await db.transaction((trx) => audit(trx, actor, rec));
    },

    async list(actorIn: Actor | undefined, projectId: string | undefined, filters: Record<string, unknown>, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      const { query: q } = await visibleRows(db, 'audit_events', actor, projectId);
      for (const f of ['entityType', 'action', 'actorId'] as const) {
        if (typeof filters[f] === 'string') q.andWhere(f, filters[f] as string);
      }
      return paginate(q, page, pageSize, present);
    },
  };
}
