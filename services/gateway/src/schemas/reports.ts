import { Type, StringEnum, Nullable, DateTime, NullableString, Uuid } from './common.ts';

/** The spec's Agreement (plus signedAt); the signed document is never returned. */
export const Agreement = Type.Object(
  { id: Uuid, projectId: Nullable(Uuid), title: Type.String(), status: Type.String(), signedAt: Nullable(DateTime), createdAt: DateTime },
  { additionalProperties: false },
);

/** The spec's Snapshot as listed: with the generated summary text. */
export const Snapshot = Type.Object(
  {
    id: Uuid, scopeType: Type.String(), scopeId: Uuid, reportType: Type.String(), status: Type.String(),
    narrativeSource: Nullable(StringEnum(['ai', 'template'])), summary: NullableString, createdAt: DateTime,
  },
  { additionalProperties: false },
);

/** Resource types a search result can have. */
export const SEARCH_TYPES = ['project', 'entry', 'release', 'wiki_page'] as const;

/** The spec's SearchResult; `url` is a path relative to /api/v1. */
export const SearchResult = Type.Object(
  { type: StringEnum(SEARCH_TYPES), id: Uuid, title: Type.String(), projectId: Nullable(Uuid), url: Type.String() },
  { additionalProperties: false },
);

/** `q` is required and not blank. */
export const SearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: 'search text (web search syntax: "phrase", or, -word)' }),
});
