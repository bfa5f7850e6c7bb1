import { type Knex, paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import type { ExternalLinkMethods } from '../../shared/external-ref.ts';
import { externalLinkMethods } from '../../shared/external-links.ts';
import { findById } from '../../shared/find-by-id.ts';

/** A wiki page row as stored (every column; the presenter decides what leaves the core). */
export type WikiPageRow = Record<string, unknown> & { id: string; organizationId: string; projectId: string; title: string };

/** Wiki pages in Postgres: all SQL of the feature (pages can be created through an externalRef). */
export interface WikiStore extends ExternalLinkMethods {
  /** One page of a project's wiki pages. */
  list(projectId: string, page: PageArgs): Promise<Page<WikiPageRow>>;
  /** A page by id, of any organization (locked for the transaction with `lock`), or undefined. Non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: boolean }): Promise<WikiPageRow | undefined>;
  /** A page of the organization by id, or undefined (the target of an externalRef's link). */
  findInOrganization(organizationId: string, id: string): Promise<WikiPageRow | undefined>;
  insert(
    values: { organizationId: string; projectId: string; creatorId: string | null } & Record<string, unknown>,
  ): Promise<WikiPageRow>;
  update(id: string, values: Record<string, unknown>): Promise<WikiPageRow>;
  /** Deletes a page and its externalRef links (so the same ref can create a fresh page later). */
  remove(organizationId: string, id: string): Promise<void>;
}

/** The knex implementation of WikiStore. */
export function createWikiStore(db: Knex): WikiStore {
  return {
    ...externalLinkMethods(db),
    list(projectId, page) {
      return paginate<WikiPageRow>(db('wiki_pages').where({ projectId }), page);
    },
    find(id, opts = {}) {
      return findById<WikiPageRow>(db, 'wiki_pages', id, opts.lock ? 'update' : undefined);
    },
    async findInOrganization(organizationId, id) {
      return db('wiki_pages').where({ id, organizationId }).first() as Promise<WikiPageRow | undefined>;
    },
    async insert(values) {
      const [row] = await db('wiki_pages').insert(values).returning('*');
      return row as WikiPageRow;
    },
    async update(id, values) {
      const [row] = await db('wiki_pages')
        .where({ id })
        .update({ ...values, updatedAt: db.fn.now() })
        .returning('*');
      return row as WikiPageRow;
    },
    async remove(organizationId, id) {
      await db('wiki_pages').where({ id }).del();
      await db('integration_links').where({ organizationId, alignEntityType: 'wiki_page', alignEntityId: id }).del();
    },
  };
}
