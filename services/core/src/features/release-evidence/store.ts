import type { Knex } from '@cluster/db';
import { AUDIT_TABLE } from '../../shared/write.ts';
import type { EntryRow } from '../entries/store.ts';
import type { AuditEventRow } from '../audit-events/store.ts';

/** What a release's evidence reads beyond the release itself: its entries, and the approval decisions on them. */
export interface ReleaseEvidenceStore {
  /** Every entry of the release, by number. */
  entriesOf(releaseId: string): Promise<EntryRow[]>;
  /** Audit rows of the organization's entries among `entryIds` that recorded an approval change, oldest first. */
  approvalDecisions(organizationId: string, entryIds: readonly string[]): Promise<AuditEventRow[]>;
}

/** The knex implementation of ReleaseEvidenceStore. */
export function createReleaseEvidenceStore(db: Knex): ReleaseEvidenceStore {
  return {
    entriesOf(releaseId) {
      return db('entries').where({ releaseId }).orderBy('entryNumber', 'asc') as Promise<EntryRow[]>;
    },
    async approvalDecisions(organizationId, entryIds) {
      if (entryIds.length === 0) return [];
      return (await db(AUDIT_TABLE)
        .where({ organizationId, entityType: 'entry' })
        .whereIn('entityId', entryIds)
        .whereRaw(`metadata \\? 'approvals'`)
        .orderBy([
          { column: 'createdAt', order: 'asc' },
          { column: 'id', order: 'asc' },
        ])) as AuditEventRow[];
    },
  };
}
