import type { JsonObject } from '@bufbuild/protobuf';
import type { SearchRow } from './store.ts';

/** Relative path (under /api/v1) of each searchable type. */
const PATHS: Record<string, string> = {
  project: '/projects/',
  entry: '/entries/',
  release: '/releases/',
  wiki_page: '/wiki-pages/',
};

/** A SearchResult of the spec. */
export function presentResult(row: SearchRow): JsonObject {
  const type = String(row.type);
  return {
    type,
    id: String(row.id),
    title: String(row.title),
    projectId: row.projectId ?? null,
    url: `${PATHS[type]}${String(row.id)}`,
  };
}
