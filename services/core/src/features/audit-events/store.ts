import { AUDIT_EVENT_FILTERS, type AuditEvent, type RowOf } from '@cluster/contracts';
import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { AUDIT_TABLE } from '../../shared/write.ts';

/** A AuditEvent row: every field of the contract's AuditEvent answer (timestamps as Dates), and the columns the core keeps to itself. */
export type AuditEventRow = RowOf<typeof AuditEvent> & { organizationId: string; projectId: string | null };

/** The filters of GET /audit-events (the contract's AUDIT_EVENT_FILTERS), each an exact match. */
export type AuditFilter = Partial<Record<(typeof AUDIT_EVENT_FILTERS)[number], string>>;

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
      for (const f of AUDIT_EVENT_FILTERS) if (filter[f] !== undefined) q.andWhere(f, filter[f]);
      return paginate<AuditEventRow>(q, page);
    },
  };
}
