import type { Knex } from '@cluster/db';

/** A search match: a record's type, id, title and project (search_documents). */
export interface SearchRow {
  type: string;
  id: string;
  title: string;
  projectId: string | null;
}

/** Full-text search in Postgres: all SQL of the feature. */
export interface SearchStore {
  /**
   * The best `limit` matches of `q` in an organization (one project's with `projectId`):
   * `websearch_to_tsquery` reads what people type (quotes, or, -not); `ts_rank` over
   * title (weight A) and body (weight B) orders them, newest first on ties.
   */
  search(organizationId: string, projectId: string | null, q: string, limit: number): Promise<SearchRow[]>;
}

/** The knex implementation of SearchStore over the GIN-indexed `search_documents` (migration 004). */
export function createSearchStore(db: Knex): SearchStore {
  return {
    async search(organizationId, projectId, q, limit) {
      const { rows } = await db.raw<{ rows: SearchRow[] }>(
        `SELECT d."entityType" AS type, d."entityId" AS id, d.title, d."projectId", ts_rank(d.document, query) AS rank
         FROM search_documents d, websearch_to_tsquery('english', ?) AS query
         WHERE d."organizationId" = ? ${projectId ? 'AND d."projectId" = ?' : ''} AND d.document @@ query
         ORDER BY rank DESC, d."createdAt" DESC, d."entityId" DESC
         LIMIT ${Number(limit)}`,
        projectId ? [q, organizationId, projectId] : [q, organizationId],
      );
      return rows;
    },
  };
}
