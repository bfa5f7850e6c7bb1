import { createFakeTable } from '../../shared/fake-table.ts';
import type { ProjectRow, ProjectStore } from './store.ts';

/** An in-memory ProjectStore for unit tests of the rules (no Postgres). */
export function createFakeProjectStore(rows: ProjectRow[] = []): ProjectStore & { rows: ProjectRow[] } {
  const table = createFakeTable<ProjectRow>({ rows, defaults: { status: 'active', entryCounter: 0 } });
  return {
    rows,
    async list(organizationId, filter, page) {
      return table.page(
        (r) =>
          r.organizationId === organizationId &&
          (!filter.id || r.id === filter.id) &&
          (filter.status === undefined || r.status === filter.status),
        page,
      );
    },
    async find(organizationId, id) {
      const row = rows.find((r) => r.id === id && r.organizationId === organizationId);
      return row && { ...row }; // a copy, as a database read is: later writes must not change it
    },
    insert: table.methods.insert,
    update: table.methods.update,
    remove: table.methods.remove,
    findById: table.methods.find,
    async listNames(organizationId) {
      return rows
        .filter((r) => r.organizationId === organizationId)
        .sort((a, b) => Number(a.createdAt) - Number(b.createdAt))
        .map((r) => ({ id: r.id, name: r.name }));
    },
    async idsIn(organizationId, ids) {
      return new Set(rows.filter((r) => r.organizationId === organizationId && ids.includes(r.id)).map((r) => r.id));
    },
  };
}
