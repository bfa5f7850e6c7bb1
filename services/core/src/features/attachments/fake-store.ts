import { createFakeTable } from '../../shared/fake-table.ts';
import type { AttachmentRow, AttachmentStore } from './store.ts';

/** An in-memory AttachmentStore for unit tests of the rules (no Postgres). */
export function createFakeAttachmentStore(): AttachmentStore & { rows: AttachmentRow[] } {
  const table = createFakeTable<AttachmentRow>();
  return {
    rows: table.rows,
    async list(entryId, page) {
      return table.page((r) => r.entryId === entryId, page);
    },
    find: table.methods.find,
    insert: table.methods.insert,
    remove: table.methods.remove,
  };
}
