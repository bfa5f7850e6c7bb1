import type { JsonObject } from '@bufbuild/protobuf';
import type { Actor } from '@cluster/proto';
import { requireActor, validation } from '@cluster/platform';
import { visibleProjectId } from '../../shared/access.ts';
import type { Stores } from '../../stores.ts';
import { presentResult } from './presenter.ts';

/** The spec's cap on search results. */
export const SEARCH_LIMIT = 25;

/**
 * GET /search: full-text search over projects, entries, releases and wiki pages,
 * best match first (SearchStore). Filtered to the key's organization, and a project
 * key's project. Rules only; SQL is in the store.
 */
export function createSearchService(stores: Stores) {
  return {
    async search(actorIn: Actor | undefined, q: unknown): Promise<JsonObject[]> {
      const actor = requireActor(actorIn);
      if (typeof q !== 'string' || !q.trim()) throw validation([{ path: 'q', message: 'is required' }]);
      const rows = await stores.search.search(actor.organizationId, visibleProjectId(actor), q, SEARCH_LIMIT);
      return rows.map(presentResult);
    },
  };
}
