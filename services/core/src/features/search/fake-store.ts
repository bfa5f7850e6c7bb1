import type { SearchRow, SearchStore } from './store.ts';

/** A searchable record of the fake: what search_documents holds for it. */
export interface FakeSearchDocument extends SearchRow {
  organizationId: string;
  body: string;
}

/**
 * An in-memory SearchStore for unit tests of the rules: a document matches when its
 * title or body contains every word of `q` (case-insensitive). No ranking: every match ties, and
 * ties come newest first, as in the real store (documents are pushed as their records are created).
 */
export function createFakeSearchStore(): SearchStore & { documents: FakeSearchDocument[] } {
  const documents: FakeSearchDocument[] = [];
  return {
    documents,
    async search(organizationId, projectId, q, limit) {
      const words = q.toLowerCase().split(/\s+/).filter(Boolean);
      return [...documents]
        .reverse()
        .filter((d) => d.organizationId === organizationId && (!projectId || d.projectId === projectId))
        .filter((d) => words.every((w) => `${d.title} ${d.body}`.toLowerCase().includes(w)))
        .slice(0, limit)
        .map(({ type, id, title, projectId: p }) => ({ type, id, title, projectId: p }));
    },
  };
}
