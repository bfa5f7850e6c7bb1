import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { AUDIT_TABLE } from '../../shared/write.ts';

/** An audit event row as stored (written by every write through `Stores.record`). */
export type AuditEventRow = Record<string, unknown> & { id: string; organizationId: string; projectId: string | null };

/** The list filters of GET /audit-events (query parameters, each an exact match). */
export const AUDIT_FILTERS = ['entityType', 'action', 'actorId'] as const;
export type AuditFilter = Partial<Record<(typeof AUDIT_FILTERS)[number], string>>;

/** Reads of the audit trail in Postgres (its rows are written by `Stores.record`). */
export interface AuditEventStore {
  /** One page of an organization's audit events, narrowed to one project's when `projectId` is set. */
  list(organizationId: string, filter: AuditFilter & { projectId?: string | null }, page: PageArgs): Promise<Page<AuditEventRow>>;
}

/** The knex implementation of AuditEventStore. */
export function createAuditEventStore(db: Knex): AuditEventStore {
  return {
    list(organizationId, filter, page) {
      const q = db(AUDIT_TABLE).where({ organizationId });
      if (filter.projectId) q.andWhere({ projectId: filter.projectId });
      for (const f of AUDIT_FILTERS) if (filter[f] !== undefined) q.andWhere(f, filter[f]);
      return paginate<AuditEventRow>(q, page);
    },
  };
}
