import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';

const PAGE_COLUMNS = ['id', 'projectId', 'title', 'content', 'createdAt', 'updatedAt'] as const;

/** What leaves the core for a wiki page (spec WikiPage, with its full content; never its creator or organization). */
export function presentWikiPage(row: Record<string, unknown>): JsonObject {
  return rowToJson(Object.fromEntries(PAGE_COLUMNS.map((c) => [c, row[c] ?? null])));
}
