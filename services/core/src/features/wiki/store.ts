import type { WikiPage, RowOf } from '@cluster/contracts';
import { type Knex, paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import type { ExternalLinkMethods, ExternalLinkRow } from '../../shared/external-ref.ts';
import { externalLinkMethods } from '../../shared/external-links.ts';
import { findRow } from '../../shared/find-by-id.ts';
import { columnValues, type Values } from '../../shared/rows.ts';

/** A WikiPage row: every field of the contract's WikiPage answer (timestamps as Dates), and the columns the core keeps to itself. */
export type WikiPageRow = RowOf<typeof WikiPage> & { organizationId: string; creatorId: string | null };

/** Wiki pages in Postgres: all SQL of the feature (pages can be created through an externalRef). */
export interface WikiStore extends ExternalLinkMethods {
  /** One page of a project's wiki pages. */
  list(projectId: string, page: PageArgs): Promise<Page<WikiPageRow>>;
  /** A page by id, of any organization (locked for the transaction with `lock`), or undefined. Non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: boolean }): Promise<WikiPageRow | undefined>;
  /** A page of the organization by id, or undefined (the target of an externalRef's link). */
  findInOrganization(organizationId: string, id: string): Promise<WikiPageRow | undefined>;
  insert(
    values: { organizationId: string; projectId: string; creatorId: string | null } & Values<WikiPageRow>,
  ): Promise<WikiPageRow>;
  update(id: string, values: Values<WikiPageRow>): Promise<WikiPageRow>;
  /** Deletes a page and its externalRef links (so the same ref can create a fresh page later). */
  remove(organizationId: string, id: string): Promise<void>;
}

/** The knex implementation of WikiStore. */
export function createWikiStore(db: Knex): WikiStore {
  return {
    ...externalLinkMethods(db),
    list(projectId, page) {
      return paginate<WikiPageRow>(db<WikiPageRow>('wiki_pages').where({ projectId }), page);
    },
    find(id, opts = {}) {
      return findRow(db<WikiPageRow>('wiki_pages'), id, opts.lock ? 'update' : undefined);
    },
    async findInOrganization(organizationId, id) {
      return db<WikiPageRow>('wiki_pages').where({ id, organizationId }).first();
    },
    async insert(values) {
      const [row] = await db<WikiPageRow>('wiki_pages').insert(columnValues(values)).returning('*');
      return row;
    },
    async update(id, values) {
      const [row] = await db<WikiPageRow>('wiki_pages')
        .where({ id })
        .update({ ...columnValues(values), updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
    async remove(organizationId, id) {
      await db<WikiPageRow>('wiki_pages').where({ id }).del();
      await db<ExternalLinkRow>('integration_links')
        .where({ organizationId, alignEntityType: 'wiki_page', alignEntityId: id })
        .del();
    },
  };
}
