import type { Attachment, RowOf } from '@cluster/contracts';
import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findRow, type RowLock } from '../../shared/find-by-id.ts';
import { columnValues, type Values } from '../../shared/rows.ts';

/** A Attachment row: every field of the contract's Attachment answer (timestamps as Dates), and the columns the core keeps to itself. */
export type AttachmentRow = RowOf<typeof Attachment> & { projectId: string; organizationId: string };

/** Attachment records in Postgres: all SQL of the feature. */
export interface AttachmentStore {
  /** One page of an entry's attachments. */
  list(entryId: string, page: PageArgs): Promise<Page<AttachmentRow>>;
  /** An attachment by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<AttachmentRow | undefined>;
  insert(values: Values<AttachmentRow>): Promise<AttachmentRow>;
  remove(id: string): Promise<void>;
}

/** The knex implementation of AttachmentStore. */
export function createAttachmentStore(db: Knex): AttachmentStore {
  return {
    list(entryId, page) {
      return paginate<AttachmentRow>(db<AttachmentRow>('attachments').where({ entryId }), page);
    },
    find(id, opts = {}) {
      return findRow(db<AttachmentRow>('attachments'), id, opts.lock);
    },
    async insert(values) {
      const [row] = await db<AttachmentRow>('attachments').insert(columnValues(values)).returning('*');
      return row;
    },
    async remove(id) {
      await db<AttachmentRow>('attachments').where({ id }).del();
    },
  };
}
