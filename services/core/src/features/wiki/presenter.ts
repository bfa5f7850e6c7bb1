import type { JsonObject } from '@bufbuild/protobuf';
import { WIKI_PAGE_FIELDS } from '@cluster/contracts';
import { rowToJson } from '@cluster/platform';

/** What leaves the core for a wiki page (spec WikiPage, with its full content; never its creator or organization). */
export function presentWikiPage(row: Record<string, unknown>): JsonObject {
  return rowToJson(Object.fromEntries(WIKI_PAGE_FIELDS.map((c) => [c, row[c] ?? null])));
}
