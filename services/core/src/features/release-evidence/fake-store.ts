import type { AuditEventRow } from '../audit-events/store.ts';
import type { EntryRow } from '../entries/store.ts';
import type { ReleaseEvidenceStore } from './store.ts';

const time = (v: unknown) => (v instanceof Date ? v.getTime() : new Date(String(v)).getTime());

/** ReleaseEvidenceStore over arrays a test fills. */
export function createFakeReleaseEvidenceStore(
  data: { entries: EntryRow[]; audit: AuditEventRow[] } = { entries: [], audit: [] },
) {
  const store: ReleaseEvidenceStore & { data: typeof data } = {
    data,
    async entriesOf(releaseId) {
      return data.entries.filter((e) => e.releaseId === releaseId).sort((a, b) => Number(a.entryNumber) - Number(b.entryNumber));
    },
    async approvalDecisions(organizationId, entryIds) {
      return (
        data.audit
          .filter(
            (a) =>
              a.organizationId === organizationId &&
              a.entityType === 'entry' &&
              entryIds.includes(a.entityId) &&
              a.metadata !== null &&
              'approvals' in a.metadata,
          )
          // Oldest first, then by id, as the real store orders them (a Date's string would sort by weekday name).
          .sort((a, b) => time(a.createdAt) - time(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      );
    },
  };
  return store;
}
