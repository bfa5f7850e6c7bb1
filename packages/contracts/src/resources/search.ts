import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum, Uuid } from './common.ts';

/** Resource types a search result can have. */
export const SEARCH_TYPES = ['project', 'entry', 'release', 'wiki_page'] as const;

/** The spec's SearchResult; `url` is a path relative to /api/v1. */
export const SearchResult = Type.Object(
  { type: StringEnum(SEARCH_TYPES), id: Uuid, title: Type.String(), projectId: Nullable(Uuid), url: Type.String() },
  { additionalProperties: false },
);

/** `q` is required and not blank. */
export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 500,
    pattern: '\\S',
    description: 'search text (web search syntax: "phrase", or, -word)',
  }),
});
