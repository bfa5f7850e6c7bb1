import { randomUUID } from 'node:crypto';
import type { Page, PageArgs } from '@cluster/platform';
import type { ProjectRow, ProjectStore } from './store.ts';

/** An in-memory ProjectStore for unit tests of the rules (no Postgres). */
export function createFakeProjectStore(rows: ProjectRow[] = []): ProjectStore & { rows: ProjectRow[] } {
  return {
    rows,
    async list(organizationId, filter, { page, pageSize }: PageArgs): Promise<Page<ProjectRow>> {
      const all = rows.filter(
        (r) =>
          r.organizationId === organizationId &&
          (!filter.id || r.id === filter.id) &&
          (filter.status === undefined || r.status === filter.status),
      );
      return {
        data: all.slice((page - 1) * pageSize, page * pageSize).map((r) => ({ ...r })),
        page,
        pageSize,
        total: all.length,
      };
    },
    async find(organizationId, id) {
      const row = rows.find((r) => r.id === id && r.organizationId === organizationId);
      return row && { ...row }; // a copy, as a database read is: later writes must not change it
    },
    async insert(values) {
      const now = new Date();
      const row = {
        status: 'active',
        entryCounter: 0,
        ...values,
        id: randomUUID(),
        createdAt: now,
        updatedAt: now,
      } as unknown as ProjectRow;
      rows.push(row);
      return { ...row };
    },
    async update(id, values) {
      const row = rows.find((r) => r.id === id);
      if (!row) throw new Error(`fake: no project ${id}`);
      Object.assign(row, values, { updatedAt: new Date() });
      return { ...row };
    },
    async remove(id) {
      rows.splice(
        rows.findIndex((r) => r.id === id),
        1,
      );
    },
    async findById(id) {
      const row = rows.find((r) => r.id === id);
      return row && { ...row };
    },
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
