import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findById, type RowLock } from '../../shared/find-by-id.ts';

/** An attachment record as stored (the file itself lives in object storage). */
export type AttachmentRow = Record<string, unknown> & { id: string; entryId: string; projectId: string; organizationId: string };

/** Attachment records in Postgres: all SQL of the feature. */
export interface AttachmentStore {
  /** One page of an entry's attachments. */
  list(entryId: string, page: PageArgs): Promise<Page<AttachmentRow>>;
  /** An attachment by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<AttachmentRow | undefined>;
  insert(values: Record<string, unknown>): Promise<AttachmentRow>;
  remove(id: string): Promise<void>;
}

/** The knex implementation of AttachmentStore. */
export function createAttachmentStore(db: Knex): AttachmentStore {
  return {
    list(entryId, page) {
      return paginate<AttachmentRow>(db('attachments').where({ entryId }), page);
    },
    find(id, opts = {}) {
      return findById<AttachmentRow>(db, 'attachments', id, opts.lock);
    },
    async insert(values) {
      const [row] = await db('attachments').insert(values).returning('*');
      return row as AttachmentRow;
    },
    async remove(id) {
      await db('attachments').where({ id }).del();
    },
  };
}
