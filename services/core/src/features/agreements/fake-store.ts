import { createFakeTable } from '../../shared/fake-table.ts';
import type { AgreementRow, AgreementStore } from './store.ts';

/** An in-memory AgreementStore for unit tests of the rules (no Postgres). Reads return copies. */
export function createFakeAgreementStore(rows: AgreementRow[] = []): AgreementStore & { rows: AgreementRow[] } {
  const table = createFakeTable<AgreementRow>({ rows });
  return {
    rows,
    async list(projectId, page) {
      return table.page((r) => r.projectId === projectId, page);
    },
    async find(organizationId, id) {
      const row = table.find(id);
      return row?.organizationId === organizationId ? row : undefined;
    },
    findById: table.methods.find,
    async insert(values) {
      return table.insert({ ...values, status: 'pending_signature', signedAt: null });
    },
    async markSigned(id) {
      return table.update(id, { status: 'signed', signedAt: new Date() });
    },
  };
}
