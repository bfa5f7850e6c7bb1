import { createFakeTable } from '../../shared/fake-table.ts';
import type { CommentRow, CommentStore } from './store.ts';

/** An in-memory CommentStore for unit tests of the rules (no Postgres). */
export function createFakeCommentStore(): CommentStore & { rows: CommentRow[] } {
  // Text columns without a default, as in the table (the spec's isInternal and isAiGenerated are strings).
  const table = createFakeTable<CommentRow>({ defaults: { isInternal: null, isAiGenerated: null } });
  return {
    rows: table.rows,
    async list(entryId, page) {
      return table.page((r) => r.entryId === entryId, page);
    },
    find: table.methods.find,
    insert: table.methods.insert,
    update: table.methods.update,
    remove: table.methods.remove,
  };
}
