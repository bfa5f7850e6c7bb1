import type { JsonObject } from '@bufbuild/protobuf';
import { WIKI_PAGE_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { WikiPageRow } from './store.ts';

/** What leaves the core for a wiki page (spec WikiPage, with its full content; never its creator or organization). */
export function presentWikiPage(row: WikiPageRow): JsonObject {
  return presentFields(row, WIKI_PAGE_FIELDS);
}
