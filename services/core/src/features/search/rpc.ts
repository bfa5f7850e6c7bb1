import type { ServiceImpl } from '@connectrpc/connect';
import { bodyOf, jsonPage } from '@cluster/platform';
import type { SearchService } from '@cluster/proto';
import { SEARCH_LIMIT, type createSearchService } from './service.ts';

/** SearchService over Connect: one page of at most SEARCH_LIMIT results, best first. */
export function searchRpc(search: ReturnType<typeof createSearchService>): ServiceImpl<typeof SearchService> {
  return {
    async search(req) {
      const data = await search.search(req.actor, bodyOf(req.query).q);
      return jsonPage({ data, page: 1, pageSize: SEARCH_LIMIT, total: data.length });
    },
  };
}
