import { randomUUID } from 'node:crypto';
import type { Page, PageArgs } from '@cluster/platform';
import type { ExternalLinkRow } from '../../shared/external-ref.ts';
import { fakeExternalLinkMethods } from '../../shared/fake-external-links.ts';
import type { MemberRow } from '../members/store.ts';
import type { UserRow, UserStore } from './store.ts';

/**
 * An in-memory UserStore for unit tests of the rules (no Postgres). Reads return
 * copies. `members` and `links` are the fake tables it reads beside its own.
 */
export function createFakeUserStore(
  rows: UserRow[] = [],
  members: MemberRow[] = [],
  links: ExternalLinkRow[] = [],
): UserStore & { rows: UserRow[]; invites: Record<string, unknown>[] } {
  const invites: Record<string, unknown>[] = [];
  const isMember = (userId: string, projectId: string | null | undefined) =>
    !projectId || members.some((m) => m.projectId === projectId && m.userId === userId);
  const copy = (row: UserRow | undefined) => row && { ...row };
  return {
    ...fakeExternalLinkMethods(links),
    rows,
    invites,
    async list(organizationId, filter, { page, pageSize }: PageArgs): Promise<Page<UserRow>> {
      const all = rows.filter(
        (r) =>
          r.organizationId === organizationId &&
          isMember(r.id, filter.memberOf) &&
          (filter.role === undefined || r.role === filter.role),
      );
      return {
        data: all.slice((page - 1) * pageSize, page * pageSize).map((r) => ({ ...r })),
        page,
        pageSize,
        total: all.length,
      };
    },
    async find(organizationId, id, opts = {}) {
      return copy(rows.find((r) => r.id === id && r.organizationId === organizationId && isMember(r.id, opts.memberOf)));
    },
    async findById(id) {
      return copy(rows.find((r) => r.id === id));
    },
    async findByEmail(organizationId, email) {
      return copy(rows.find((r) => r.organizationId === organizationId && r.email.toLowerCase() === email.toLowerCase()));
    },
    async listAll(organizationId) {
      return rows
        .filter((r) => r.organizationId === organizationId)
        .map(({ id, email, name, role }) => ({ id, email, name, role }));
    },
    async insert(values) {
      const now = new Date();
      const row: UserRow = { metadata: null, ...values, id: randomUUID(), createdAt: now, updatedAt: now };
      rows.push(row);
      return { ...row };
    },
    async update(id, values) {
      const row = rows.find((r) => r.id === id);
      if (!row) throw new Error(`fake: no user ${id}`);
      Object.assign(row, values, { updatedAt: new Date() });
      return { ...row };
    },
    async lockInviteEmail() {},
    async insertInvite(values) {
      const row = { ...values, id: randomUUID(), channel: 'email', status: 'sent' };
      invites.push(row);
      return { id: row.id };
    },
    async deleteExternalLink(id) {
      const i = links.findIndex((l) => l.id === id);
      if (i >= 0) links.splice(i, 1);
    },
  };
}
