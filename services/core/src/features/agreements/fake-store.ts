import { randomUUID } from 'node:crypto';
import type { Page, PageArgs } from '@cluster/platform';
import type { AgreementRow, AgreementStore } from './store.ts';

/** An in-memory AgreementStore for unit tests of the rules (no Postgres). Reads return copies. */
export function createFakeAgreementStore(rows: AgreementRow[] = []): AgreementStore & { rows: AgreementRow[] } {
  const copy = (row: AgreementRow | undefined) => row && { ...row };
  return {
    rows,
    async list(projectId, { page, pageSize }: PageArgs): Promise<Page<AgreementRow>> {
      const all = rows.filter((r) => r.projectId === projectId);
      return {
        data: all.slice((page - 1) * pageSize, page * pageSize).map((r) => ({ ...r })),
        page,
        pageSize,
        total: all.length,
      };
    },
    async find(organizationId, id) {
      return copy(rows.find((r) => r.id === id && r.organizationId === organizationId));
    },
    async findById(id) {
      return copy(rows.find((r) => r.id === id));
    },
    async insert(values) {
      const now = new Date();
      const row: AgreementRow = {
        ...values,
        id: randomUUID(),
        status: 'pending_signature',
        signedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      rows.push(row);
      return { ...row };
    },
    async markSigned(id) {
      const row = rows.find((r) => r.id === id);
      if (!row) throw new Error(`fake: no agreement ${id}`);
      Object.assign(row, { status: 'signed', signedAt: new Date(), updatedAt: new Date() });
      return { ...row };
    },
  };
}
