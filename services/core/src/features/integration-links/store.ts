import { INTEGRATION_LINK_FILTERS } from '@cluster/contracts';
import { isUuid, type Knex, paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { externalLinkMethods } from '../../shared/external-links.ts';
import type { ExternalLinkMethods, ExternalLinkRow } from '../../shared/external-ref.ts';
import { findRow, type RowLock } from '../../shared/find-by-id.ts';
import { columnValues, type Values } from '../../shared/rows.ts';

/** An integration link row as stored. */
export type IntegrationLinkRow = ExternalLinkRow;

/** The filters of GET /integration-links (the contract's INTEGRATION_LINK_FILTERS), each an exact match. */
export type LinkFilter = Partial<Record<(typeof INTEGRATION_LINK_FILTERS)[number], string>>;

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
 * Integration links in Postgres: all SQL of the feature. The externalRef methods
 * (lock, find, insert-if-absent by external record) are the ones the stores of
 * features created through an externalRef share (shared/external-links.ts).
 */
export interface IntegrationLinkStore extends ExternalLinkMethods {
  /** One page of an organization's links, narrowed to one project's when `projectId` is set. */
  list(
    organizationId: string,
    filter: LinkFilter & { projectId?: string | null },
    page: PageArgs,
  ): Promise<Page<IntegrationLinkRow>>;
  /** A link by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<IntegrationLinkRow | undefined>;
  update(id: string, values: Values<IntegrationLinkRow>): Promise<IntegrationLinkRow>;
  remove(id: string): Promise<void>;
  /** The project of an internal record of the organization a link would point at (null: none); undefined when missing. */
  findAlignTarget(organizationId: string, type: AlignEntityType, id: string): Promise<{ projectId: string | null } | undefined>;
}

/** The knex implementation of IntegrationLinkStore. */
export function createIntegrationLinkStore(db: Knex): IntegrationLinkStore {
  return {
    ...externalLinkMethods(db),
    list(organizationId, filter, page) {
      const q = db<IntegrationLinkRow>('integration_links').where({ organizationId });
      if (filter.projectId) q.andWhere({ projectId: filter.projectId });
      for (const f of INTEGRATION_LINK_FILTERS) if (filter[f] !== undefined) q.andWhere(f, filter[f]);
      return paginate<IntegrationLinkRow>(q, page);
    },
    find(id, opts = {}) {
      return findRow(db<IntegrationLinkRow>('integration_links'), id, opts.lock);
    },
    async update(id, values) {
      const [row] = await db<IntegrationLinkRow>('integration_links')
        .where({ id })
        .update({ ...columnValues(values), updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
    async remove(id) {
      await db<IntegrationLinkRow>('integration_links').where({ id }).del();
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
