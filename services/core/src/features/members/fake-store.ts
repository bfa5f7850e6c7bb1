import { createFakeTable } from '../../shared/fake-table.ts';
import type { MemberRow, MemberStore } from './store.ts';

/** An in-memory MemberStore for unit tests of the rules (no Postgres). Reads return copies. */
export function createFakeMemberStore(rows: MemberRow[] = []): MemberStore & { rows: MemberRow[] } {
  const copy = (row: MemberRow | undefined) => row && { ...row };
  const table = createFakeTable<MemberRow>({ rows, defaults: { roleOverride: null, metadata: null }, updatedAt: false });
  const taken = (v: { projectId: string; userId: string }) =>
    rows.some((r) => r.projectId === v.projectId && r.userId === v.userId);
  return {
    rows,
    async list(projectId, page) {
      return table.page((r) => r.projectId === projectId, page);
    },
    async find(projectId, memberId) {
      const row = table.find(memberId);
      return row?.projectId === projectId ? row : undefined;
    },
    async findByUser(projectId, userId) {
      return copy(rows.find((r) => r.projectId === projectId && r.userId === userId));
    },
    async insert(values) {
      return taken(values) ? undefined : table.insert(values);
    },
    async insertMany(values) {
      if (values.some(taken)) throw new Error('fake: duplicate key value violates unique constraint');
      return values.map((v) => table.insert(v));
    },
    update: table.methods.update,
    remove: table.methods.remove,
  };
}
