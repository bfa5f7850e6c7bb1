import type { Knex } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { validation } from '@cluster/platform';
import { type Actor, requireActor, visibleProjectId } from '../../lib/actor.ts';

/** The spec's cap on search results. */
export const SEARCH_LIMIT = 25;

/** Relative path (under /api/v1) of each searchable type. */
const PATHS: Record<string, string> = {
  project: '/projects/',
  entry: '/entries/',
  release: '/releases/',
  wiki_page: '/wiki-pages/',
};

/** A SearchResult of the spec. */
export function presentResult(row: Record<string, unknown>): JsonObject {
  const type = String(row.type);
  return { type, id: String(row.id), title: String(row.title), projectId: (row.projectId as string | null) ?? null, url: `${PATHS[type]}${String(row.id)}` };
}

/**
 * GET /search: Postgres full-text search over the GIN-indexed `search_documents`
 * (migration 004). `websearch_to_tsquery` reads what people type (quotes, or,
 * -not); `ts_rank` over title (weight A) and body (weight B) orders the matches,
 * newest first on ties. Filtered to the key's organization, and a project key's project.
 */
export function createSearchService(db: Knex) {
  return {
    async search(actorIn: Actor | undefined, q: unknown): Promise<JsonObject[]> {
      const actor = requireActor(actorIn);
      if (typeof q !== 'string' || !q.trim()) throw validation([{ path: 'q', message: 'is required' }]);
      const scoped = visibleProjectId(actor);
      const { rows } = await db.raw(
        `SELECT d."entityType" AS type, d."entityId" AS id, d.title, d."projectId", ts_rank(d.document, query) AS rank
         FROM search_documents d, websearch_to_tsquery('english', ?) AS query
         WHERE d."organizationId" = ? ${scoped ? 'AND d."projectId" = ?' : ''} AND d.document @@ query
         ORDER BY rank DESC, d."createdAt" DESC, d."entityId" DESC
         LIMIT ${SEARCH_LIMIT}`,
        scoped ? [q, actor.organizationId, scoped] : [q, actor.organizationId],
      );
      return (rows as Record<string, unknown>[]).map(presentResult);
    },
  };
}
