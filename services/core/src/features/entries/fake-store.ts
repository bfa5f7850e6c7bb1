import { ENTRY_FILTERS, ENTRY_WRITABLE_FIELDS } from '@cluster/contracts';
import type { WriteRecord } from '@cluster/outbox';
import { createFakeTable } from '../../shared/fake-table.ts';
import type { ProjectRow } from '../projects/store.ts';
import type { EntryRow, EntryStore } from './store.ts';

/** A user as the fake assignee check sees it. */
export interface FakeUser {
  id: string;
  organizationId: string;
}

/**
 * An in-memory EntryStore for unit tests of the rules. `create` acts as the one
 * statement does: no project of the entry's organization, nothing written; else the
 * project's counter gives the number, and the write lands in `written` with the row.
 * `users` stands for the users table (the assignee check).
 */
export function createFakeEntryStore(deps: {
  projects: () => ProjectRow[];
  written: WriteRecord[];
}): EntryStore & { rows: EntryRow[]; users: FakeUser[] } {
  const table = createFakeTable<EntryRow>();
  const users: FakeUser[] = [];
  return {
    rows: table.rows,
    users,
    async list(projectId, filter, page) {
      return table.page(
        (r) => r.projectId === projectId && ENTRY_FILTERS.every((f) => filter[f] === undefined || r[f] === filter[f]),
        page,
      );
    },
    find: table.methods.find,
    async create(entry, write) {
      const project = deps.projects().find((p) => p.id === entry.projectId && p.organizationId === entry.organizationId);
      if (!project) return undefined;
      project.entryCounter = Number(project.entryCounter ?? 0) + 1;
      // The statement writes every column: those the entry leaves out are NULL.
      const unset = Object.fromEntries(ENTRY_WRITABLE_FIELDS.map((f) => [f, null]));
      const row = table.insert({ ...unset, deploymentStage: null, ...entry, entryNumber: project.entryCounter });
      deps.written.push(write);
      return row;
    },
    async update(id, values, opts = {}) {
      return table.update(id, opts.statusChangedNow ? { ...values, statusChangedAt: new Date() } : values);
    },
    remove: table.methods.remove,
    async isOrganizationUser(organizationId, userId) {
      return users.some((u) => u.id === userId && u.organizationId === organizationId);
    },
  };
}
