import { randomUUID } from 'node:crypto';
import { AUDIT_EVENT_FILTERS } from '@cluster/contracts';
import { fakePage } from '@cluster/db/test-kit';
import type { WriteRecord } from '@cluster/outbox';
import { isJsonValue } from '../../shared/present.ts';
import { AUDIT_TABLE } from '../../shared/write.ts';
import type { AuditEventRow, AuditEventStore } from './store.ts';

/**
 * An in-memory AuditEventStore for unit tests that reads the audit rows of the
 * writes the fake Stores recorded (`written`), as the table would hold them: a
 * row with an id already taken is not written again (ON CONFLICT DO NOTHING).
 */
export function createFakeAuditEventStore(written: WriteRecord[]): AuditEventStore & { rows(): AuditEventRow[] } {
  // Ids and times the fake "database" gave each row object, stable across reads.
  const stamped = new WeakMap<object, { id: string; createdAt: Date }>();
  let clock = Date.now();
  const rows = (): AuditEventRow[] => {
    const seen = new Set<string>();
    const out: AuditEventRow[] = [];
    for (const w of written) {
      for (const r of w.rows) {
        if (r.table !== AUDIT_TABLE) continue;
        let stamp = stamped.get(r.row);
        if (!stamp) {
          stamp = { id: randomUUID(), createdAt: new Date(++clock) };
          stamped.set(r.row, stamp);
        }
        const id = typeof r.row.id === 'string' ? r.row.id : stamp.id;
        if (seen.has(id)) continue;
        seen.add(id);
        const createdAt = typeof r.row.createdAt === 'string' ? new Date(r.row.createdAt) : stamp.createdAt;
        const text = (v: unknown) => (typeof v === 'string' ? v : null);
        out.push({
          id,
          organizationId: String(r.row.organizationId),
          projectId: text(r.row.projectId),
          entityType: String(r.row.entityType),
          action: String(r.row.action),
          entityId: String(r.row.entityId),
          entityName: text(r.row.entityName),
          actorId: text(r.row.actorId),
          metadata: isJsonValue(r.row.metadata) ? r.row.metadata : null,
          createdAt,
        });
      }
    }
    return out;
  };
  return {
    rows,
    async list(organizationId, filter, page) {
      const mine = rows().filter(
        (r) =>
          r.organizationId === organizationId &&
          (!filter.projectId || r.projectId === filter.projectId) &&
          AUDIT_EVENT_FILTERS.every((f) => filter[f] === undefined || r[f] === filter[f]),
      );
      return fakePage(mine, page);
    },
  };
}
