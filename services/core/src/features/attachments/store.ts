import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findRow, type RowLock } from '../../shared/find-by-id.ts';
import { columnValues, type Values } from '../../shared/rows.ts';

/** An attachment record (every column; the file itself lives in object storage). */
export interface AttachmentRow {
  id: string;
  entryId: string;
  projectId: string;
  organizationId: string;
  fileName: string;
  fileSize: string;
  fileType: string;
  objectPath: string;
  uploadedById: string | null;
  category: string | null;
  isAiGenerated: string | null;
  sourceAssistantUploadId: string | null;
  sourceAssistantConversationId: string | null;
  linkedByUserId: string | null;
  addedVia: string | null;
  attachmentSource: string | null;
  evidenceSummary: string | null;
  removedByUserId: string | null;
  removedVia: string | null;
  replacementAttachmentId: string | null;
  replacementOfAttachmentId: string | null;
  lifecycleReason: string | null;
  attachmentStatus: string | null;
  removedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

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
