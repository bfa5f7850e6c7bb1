import { randomUUID } from 'node:crypto';
import type { Page, PageArgs } from '@cluster/platform';
import type { MemberRow, MemberStore } from './store.ts';

/** An in-memory MemberStore for unit tests of the rules (no Postgres). Reads return copies. */
export function createFakeMemberStore(rows: MemberRow[] = []): MemberStore & { rows: MemberRow[] } {
  const copy = (row: MemberRow | undefined) => row && { ...row };
  const add = (values: { projectId: string; userId: string } & Record<string, unknown>): MemberRow => {
    const row: MemberRow = { roleOverride: null, metadata: null, ...values, id: randomUUID(), createdAt: new Date() };
    rows.push(row);
    return { ...row };
  };
  return {
    rows,
    async list(projectId, { page, pageSize }: PageArgs): Promise<Page<MemberRow>> {
      const all = rows.filter((r) => r.projectId === projectId);
      return {
        data: all.slice((page - 1) * pageSize, page * pageSize).map((r) => ({ ...r })),
        page,
        pageSize,
        total: all.length,
      };
    },
    async find(projectId, memberId) {
      return copy(rows.find((r) => r.id === memberId && r.projectId === projectId));
    },
    async findByUser(projectId, userId) {
      return copy(rows.find((r) => r.projectId === projectId && r.userId === userId));
    },
    async insert(values) {
      if (rows.some((r) => r.projectId === values.projectId && r.userId === values.userId)) return undefined;
      return add(values);
    },
    async insertMany(values) {
      if (values.some((v) => rows.some((r) => r.projectId === v.projectId && r.userId === v.userId))) {
        throw new Error('fake: duplicate key value violates unique constraint');
      }
      return values.map(add);
    },
    async update(id, values) {
      const row = rows.find((r) => r.id === id);
      if (!row) throw new Error(`fake: no member ${id}`);
      Object.assign(row, values);
      return { ...row };
    },
    async remove(id) {
      rows.splice(
        rows.findIndex((r) => r.id === id),
        1,
      );
    },
  };
}
