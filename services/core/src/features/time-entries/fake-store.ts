import type { ExternalLinkRow } from '../../shared/external-ref.ts';
import { fakeExternalLinkMethods } from '../../shared/fake-external-links.ts';
import { createFakeTable } from '../../shared/fake-table.ts';
import { formatWorkDate } from './duration.ts';
import type { CostSums, MinutesGroup, TimeEntryFilter, TimeEntryRow, TimeEntryStore } from './store.ts';

/** A work item a fake time entry may point at. */
export interface FakeWorkItem {
  kind: 'entry' | 'release';
  id: string;
  projectId: string;
}

/**
 * An in-memory TimeEntryStore for unit tests of the rules (no Postgres). Reads
 * return copies. `links` is the shared fake link table, `workItems` the entries and
 * releases that exist, `costs` what costSums answers by project id.
 */
export function createFakeTimeEntryStore(
  rows: TimeEntryRow[] = [],
  links: ExternalLinkRow[] = [],
  workItems: FakeWorkItem[] = [],
  costs: Map<string, CostSums> = new Map(),
): TimeEntryStore & { rows: TimeEntryRow[]; workItems: FakeWorkItem[]; costs: Map<string, CostSums> } {
  const copy = (row: TimeEntryRow | undefined) => row && { ...row };
  const inRange = (row: TimeEntryRow, f: { from?: string; to?: string }) => {
    const d = formatWorkDate(row.workDate);
    return (f.from === undefined || d >= f.from) && (f.to === undefined || d <= f.to);
  };
  const matches = (row: TimeEntryRow, organizationId: string, f: TimeEntryFilter) =>
    row.organizationId === organizationId &&
    (!f.projectId || row.projectId === f.projectId) &&
    (f.status === undefined || row.status === f.status) &&
    (['userId', 'entryId', 'releaseId'] as const).every((k) => f[k] === undefined || row[k] === f[k]) &&
    inRange(row, f);
  // The columns' defaults; the service always gives the required columns.
  const table = createFakeTable<TimeEntryRow>({
    rows,
    defaults: {
      entryId: null,
      releaseId: null,
      description: null,
      billable: true,
      invoiced: false,
      externalSystem: null,
      externalId: null,
      externalMetadata: null,
    },
  });
  return {
    ...fakeExternalLinkMethods(links),
    rows,
    workItems,
    costs,
    async list(organizationId, filter, page) {
      return table.page((r) => matches(r, organizationId, filter), page);
    },
    find: table.methods.find,
    async findInOrganization(organizationId, id) {
      return copy(rows.find((r) => r.id === id && r.organizationId === organizationId));
    },
    async findSynced(organizationId, externalSystem, externalId) {
      return copy(
        rows.find(
          (r) => r.organizationId === organizationId && r.externalSystem === externalSystem && r.externalId === externalId,
        ),
      );
    },
    async linksOf(organizationId, id) {
      return links
        .filter((l) => l.organizationId === organizationId && l.alignEntityType === 'time_entry' && l.alignEntityId === id)
        .map((l) => ({ ...l }));
    },
    insert: table.methods.insert,
    async insertSynced(values) {
      const taken = rows.some(
        (r) =>
          r.organizationId === values.organizationId &&
          r.externalSystem === values.externalSystem &&
          r.externalId === values.externalId,
      );
      return taken ? undefined : table.insert(values);
    },
    update: table.methods.update,
    async hasWorkItem(kind, id, projectId) {
      return workItems.some((w) => w.kind === kind && w.id === id && w.projectId === projectId);
    },
    async minutesGroups(projectId, filter) {
      const groups = new Map<string, MinutesGroup>();
      for (const r of rows) {
        if (r.projectId !== projectId || (filter.releaseId && r.releaseId !== filter.releaseId) || !inRange(r, filter)) continue;
        const key = `${r.userId}|${r.status}|${String(r.billable)}`;
        const g = groups.get(key) ?? { userId: r.userId, status: r.status, billable: Boolean(r.billable), minutes: 0 };
        g.minutes += Number(r.minutes);
        groups.set(key, g);
      }
      return [...groups.values()];
    },
    async costSums(projectId) {
      return { plannedCost: null, actualCost: null, approvedCost: null, pendingCost: null, ...costs.get(projectId) };
    },
  };
}
