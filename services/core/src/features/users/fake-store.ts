import { randomUUID } from 'node:crypto';
import type { ExternalLinkRow } from '../../shared/external-ref.ts';
import { fakeExternalLinkMethods } from '../../shared/fake-external-links.ts';
import { createFakeTable } from '../../shared/fake-table.ts';
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
  const table = createFakeTable<UserRow>({ rows, defaults: { metadata: null } });
  return {
    ...fakeExternalLinkMethods(links),
    rows,
    invites,
    async list(organizationId, filter, page) {
      return table.page(
        (r) =>
          r.organizationId === organizationId &&
          isMember(r.id, filter.memberOf) &&
          (filter.role === undefined || r.role === filter.role),
        page,
      );
    },
    async find(organizationId, id, opts = {}) {
      return copy(rows.find((r) => r.id === id && r.organizationId === organizationId && isMember(r.id, opts.memberOf)));
    },
    findById: table.methods.find,
    async findByEmail(organizationId, email) {
      return copy(rows.find((r) => r.organizationId === organizationId && r.email.toLowerCase() === email.toLowerCase()));
    },
    async listAll(organizationId) {
      return rows
        .filter((r) => r.organizationId === organizationId)
        .map(({ id, email, name, role }) => ({ id, email, name, role }));
    },
    insert: table.methods.insert,
    update: table.methods.update,
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
