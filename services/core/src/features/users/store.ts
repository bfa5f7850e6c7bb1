import type { JsonValue } from '@bufbuild/protobuf';
import { USER_FIELDS } from '@cluster/contracts';
import { isUuid, type Knex, jsonbValues, paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import type { ExternalLinkMethods, ExternalLinkRow } from '../../shared/external-ref.ts';
import { externalLinkMethods } from '../../shared/external-links.ts';
import type { Values } from '../../shared/rows.ts';

/**
 * A user row: the contract's USER_FIELDS only, the only user columns a store ever reads.
 * An allow-list, so that passwordHash, mfaSecret or any later secret column can never be answered.
 */
export interface UserRow {
  id: string;
  /** Nullable in the table (migration 004); every user the core reads is one of an organization's. */
  organizationId: string;
  email: string;
  name: string;
  role: string;
  metadata: JsonValue | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An invites row (every column, migration 004): an outbound invitation a mailer would send. */
export interface InviteRow {
  id: string;
  organizationId: string;
  userId: string;
  email: string;
  channel: string;
  status: string;
  invitedByUserId: string | null;
  apiKeyId: string | null;
  sentAt: Date;
  createdAt: Date;
}

/** Users and their invitations in Postgres: all SQL of the feature (invites link users to externalRefs too). */
export interface UserStore extends ExternalLinkMethods {
  /** One page of an organization's users; `memberOf`: only members of that project; `role`: only that role. */
  list(organizationId: string, filter: { memberOf?: string | null; role?: string }, page: PageArgs): Promise<Page<UserRow>>;
  /**
   * A user of the organization (only a member of `memberOf` when given; locked for the
   * transaction with `lock`), or undefined. Non-UUID ids find nothing.
   */
  find(organizationId: string, id: string, opts?: { memberOf?: string | null; lock?: boolean }): Promise<UserRow | undefined>;
  /** A user of any organization (locked with `lock`): the admin CLI's operator names users by id alone. */
  findById(id: string, opts?: { lock?: boolean }): Promise<UserRow | undefined>;
  /** The user of the organization with this e-mail, compared case-insensitively. */
  findByEmail(organizationId: string, email: string): Promise<UserRow | undefined>;
  /** Every user of an organization, oldest first (the admin CLI's demo answer). */
  listAll(organizationId: string): Promise<Pick<UserRow, 'id' | 'email' | 'name' | 'role'>[]>;
  insert(values: { organizationId: string; email: string; name: string; role: string; metadata?: unknown }): Promise<UserRow>;
  update(id: string, values: Values<UserRow>): Promise<UserRow>;
  /** Serialises invitations of one e-mail in an organization for the rest of the transaction. */
  lockInviteEmail(organizationId: string, email: string): Promise<void>;
  /** Records an outbound invitation (no SMTP: a mailer would read the `invites` table). */
  insertInvite(values: {
    organizationId: string;
    userId: string;
    email: string;
    invitedByUserId: string | null;
    apiKeyId: string;
  }): Promise<{ id: string }>;
  /** Deletes an integration link (one whose user is gone). */
  deleteExternalLink(id: string): Promise<void>;
}

// Columns stored as jsonb: which ones are is a detail of this table, so the contract does not list them.
const JSON_COLUMNS = ['metadata'];

/** The knex implementation of UserStore. */
export function createUserStore(db: Knex): UserStore {
  const memberOf = (projectId: string) =>
    db('project_members').select(db.raw('1')).where({ projectId }).whereRaw('"userId" = users.id');
  return {
    ...externalLinkMethods(db),
    list(organizationId, filter, page) {
      const q = db<UserRow>('users')
        .select(...USER_FIELDS)
        .where({ organizationId });
      if (filter.memberOf) q.whereIn('id', db('project_members').select('userId').where({ projectId: filter.memberOf }));
      if (filter.role !== undefined) q.andWhere({ role: filter.role });
      return paginate<UserRow>(q, page);
    },
    async find(organizationId, id, opts = {}) {
      if (!isUuid(id)) return undefined;
      const q = db<UserRow>('users')
        .select(...USER_FIELDS)
        .where({ id, organizationId });
      if (opts.memberOf) q.whereExists(memberOf(opts.memberOf));
      return opts.lock ? q.forUpdate().first() : q.first();
    },
    async findById(id, opts = {}) {
      if (!isUuid(id)) return undefined;
      const q = db<UserRow>('users')
        .select(...USER_FIELDS)
        .where({ id });
      return opts.lock ? q.forUpdate().first() : q.first();
    },
    findByEmail(organizationId, email) {
      return db<UserRow>('users')
        .select(...USER_FIELDS)
        .where({ organizationId })
        .whereRaw('lower(email) = lower(?)', [email])
        .first();
    },
    listAll(organizationId) {
      return db<UserRow>('users').where({ organizationId }).orderBy('createdAt').select('id', 'email', 'name', 'role');
    },
    async insert(values) {
      const [row] = await db<UserRow>('users').insert(jsonbValues(values, JSON_COLUMNS)).returning(USER_FIELDS);
      return row;
    },
    async update(id, values) {
      const [row] = await db<UserRow>('users')
        .where({ id })
        .update({ ...jsonbValues(values, JSON_COLUMNS), updatedAt: db.fn.now() })
        .returning(USER_FIELDS);
      return row;
    },
    async lockInviteEmail(organizationId, email) {
      await db.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`invite|${organizationId}|${email.toLowerCase()}`]);
    },
    async insertInvite(values) {
      const [row] = await db<InviteRow>('invites').insert(values).returning('id');
      return row;
    },
    async deleteExternalLink(id) {
      await db<ExternalLinkRow>('integration_links').where({ id }).del();
    },
  };
}
