import type { AuditEventRow } from '../audit-events/store.ts';
import type { EntryRow } from '../entries/store.ts';
import type { ReleaseEvidenceStore } from './store.ts';

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
      return data.audit
        .filter(
          (a) =>
            a.organizationId === organizationId &&
            a.entityType === 'entry' &&
            entryIds.includes(a.entityId) &&
            (a.metadata as { approvals?: unknown } | null)?.approvals !== undefined,
        )
        .sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
    },
  };
  return store;
}
