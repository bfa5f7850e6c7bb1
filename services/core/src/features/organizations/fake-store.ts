import { randomUUID } from 'node:crypto';
import type { OrganizationRow, OrganizationStore } from './store.ts';

/** An in-memory OrganizationStore for unit tests (no Postgres). Reads return copies. */
export function createFakeOrganizationStore(rows: OrganizationRow[] = []): OrganizationStore & { rows: OrganizationRow[] } {
  const copy = (row: OrganizationRow | undefined) => row && { ...row };
  return {
    rows,
    async insert(name) {
      const row: OrganizationRow = { id: randomUUID(), name, apiEnabled: true, currency: 'USD', createdAt: new Date() };
      rows.push(row);
      return { ...row };
    },
    async find(id) {
      return copy(rows.find((r) => r.id === id));
    },
    async findByName(name) {
      return copy(rows.find((r) => r.name === name));
    },
    async setApiEnabled(id, enabled) {
      const row = rows.find((r) => r.id === id);
      if (row) row.apiEnabled = enabled;
      return copy(row);
    },
  };
}
