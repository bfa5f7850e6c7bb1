import { isUuid, type Knex } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findById, type RowLock } from '../../shared/find-by-id.ts';
import { paginate } from '../../shared/paginate.ts';
import type { ExternalRef } from './external-ref.ts';

/** An integration link row as stored. */
export type IntegrationLinkRow = Record<string, unknown> & {
  id: string;
  organizationId: string;
  projectId: string | null;
  provider: string;
  externalType: string;
  externalId: string;
  alignEntityType: string;
  alignEntityId: string;
};

/** The list filters of GET /integration-links (query parameters, each an exact match). */
export const LINK_FILTERS = ['provider', 'externalType', 'externalId', 'alignEntityType', 'alignEntityId'] as const;
export type LinkFilter = Partial<Record<(typeof LINK_FILTERS)[number], string>>;

/**
 * Internal entities a link may point at: their table and the column holding their
 * project (null: organization-level, such as users). A new linkable feature adds its line.
 */
const ALIGN_TARGETS = {
  project: { table: 'projects', projectColumn: 'id' },
  entry: { table: 'entries', projectColumn: 'projectId' },
  release: { table: 'releases', projectColumn: 'projectId' },
  comment: { table: 'comments', projectColumn: 'projectId' },
  attachment: { table: 'attachments', projectColumn: 'projectId' },
  user: { table: 'users', projectColumn: null },
  time_entry: { table: 'time_entries', projectColumn: 'projectId' },
  wiki_page: { table: 'wiki_pages', projectColumn: 'projectId' },
  agreement: { table: 'agreements', projectColumn: 'projectId' },
} as const satisfies Record<string, { table: string; projectColumn: string | null }>;

/** An `alignEntityType` a link may have. */
export type AlignEntityType = keyof typeof ALIGN_TARGETS;
/** Every `alignEntityType`, in the order the validation message lists them. */
export const ALIGN_ENTITY_TYPES = Object.keys(ALIGN_TARGETS) as AlignEntityType[];

/**
 * Integration links in Postgres: all SQL of the feature. Other features that take
 * an externalRef (wiki pages, invites, time entries) use `lockRef` and `insertIfAbsent`
 * through their Stores (see external-ref.ts).
 */
export interface IntegrationLinkStore {
  /** One page of an organization's links, narrowed to one project's when `projectId` is set. */
  list(organizationId: string, filter: LinkFilter & { projectId?: string | null }, page: PageArgs): Promise<Page<IntegrationLinkRow>>;
  /** A link by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<IntegrationLinkRow | undefined>;
  /** The organization's link of an external record, if any. */
  findByRef(organizationId: string, ref: ExternalRef): Promise<IntegrationLinkRow | undefined>;
  /**
   * Serialises upserts of one externalRef in an organization for the rest of the
   * transaction, then returns its link, if one exists: two concurrent creates with
   * the same ref see each other (one creates, one matches).
   */
  lockRef(organizationId: string, ref: ExternalRef): Promise<IntegrationLinkRow | undefined>;
  /** Inserts a link unless the organization already has one for its external record (then undefined). */
  insertIfAbsent(values: Record<string, unknown>): Promise<IntegrationLinkRow | undefined>;
  update(id: string, values: Record<string, unknown>): Promise<IntegrationLinkRow>;
  remove(id: string): Promise<void>;
  /** The project of an internal record of the organization a link would point at (null: none); undefined when missing. */
  findAlignTarget(organizationId: string, type: AlignEntityType, id: string): Promise<{ projectId: string | null } | undefined>;
}

const refWhere = (organizationId: string, ref: ExternalRef) => ({
  organizationId, provider: ref.provider, externalType: ref.externalType, externalId: ref.externalId,
});

/** The knex implementation of IntegrationLinkStore. */
export function createIntegrationLinkStore(db: Knex): IntegrationLinkStore {
  const findByRef = async (organizationId: string, ref: ExternalRef) =>
    (await db('integration_links').where(refWhere(organizationId, ref)).first()) as IntegrationLinkRow | undefined;
  return {
    list(organizationId, filter, page) {
      const q = db('integration_links').where({ organizationId });
      if (filter.projectId) q.andWhere({ projectId: filter.projectId });
      for (const f of LINK_FILTERS) if (filter[f] !== undefined) q.andWhere(f, filter[f]);
      return paginate<IntegrationLinkRow>(q, page);
    },
    find(id, opts = {}) {
      return findById<IntegrationLinkRow>(db, 'integration_links', id, opts.lock);
    },
    findByRef,
    async lockRef(organizationId, ref) {
      await db.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [
        `external-ref|${organizationId}|${ref.provider}|${ref.externalType}|${ref.externalId}`,
      ]);
      return findByRef(organizationId, ref);
    },
    async insertIfAbsent(values) {
      const [row] = await db('integration_links')
        .insert(values)
        .onConflict(['organizationId', 'provider', 'externalType', 'externalId'])
        .ignore()
        .returning('*');
      return row as IntegrationLinkRow | undefined;
    },
    async update(id, values) {
      const [row] = await db('integration_links').where({ id }).update({ ...values, updatedAt: db.fn.now() }).returning('*');
      return row as IntegrationLinkRow;
    },
    async remove(id) {
      await db('integration_links').where({ id }).del();
    },
    async findAlignTarget(organizationId, type, id) {
      if (!isUuid(id)) return undefined;
      const target = ALIGN_TARGETS[type];
      const row = (await db(target.table).where({ id, organizationId }).first()) as Record<string, unknown> | undefined;
      if (!row) return undefined;
      return { projectId: target.projectColumn ? (row[target.projectColumn] as string) : null };
    },
  };
}
