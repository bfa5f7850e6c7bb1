import { ListOf } from '../resources/common.ts';
import { SearchQuery, SearchResult } from '../resources/search.ts';
import type { Operation } from './operation.ts';

/** Global search: up to 25 results, best first, filtered to what the key may see. */
export const searchOperations: Operation[] = [
  {
    method: 'GET',
    path: '/search',
    summary: 'Search projects, entries, releases and wiki pages',
    tag: 'search',
    operation: 'cluster.core.v1.SearchService/Search',
    tool: { name: 'search', title: 'Search', description: 'Full-text search across the resources the key can read.' },
    permission: 'read:search',
    query: SearchQuery,
    response: {
      status: 200,
      schema: ListOf(SearchResult),
      description: 'At most 25 results, best match first (page 1, pageSize 25, total = results returned)',
    },
  },
];
