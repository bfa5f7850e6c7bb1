import { SearchService } from '@cluster/proto';
import { ListOf, SearchQuery, SearchResult } from '@cluster/contracts';
import { list } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';

/** Global search: up to 25 results, best first, filtered to what the key may see. */
export const searchRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/search',
    summary: 'Search projects, entries, releases and wiki pages',
    tag: 'search',
    service: SearchService,
    rpc: 'search',
    tool: { name: 'search', title: 'Search', description: 'Full-text search across the resources the key can read.' },
    permission: 'read:search',
    query: SearchQuery,
    response: {
      status: 200,
      schema: ListOf(SearchResult),
      description: 'At most 25 results, best match first (page 1, pageSize 25, total = results returned)',
    },
    handler: async ({ actor, query, call }) => list(await call({ actor, query: { q: query.q }, page: 1, pageSize: 25 })),
  }),
];
