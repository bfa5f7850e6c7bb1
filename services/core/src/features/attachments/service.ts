import type { Knex } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { type Actor, requireActor } from '../../lib/actor.ts';
import { pickColumns, toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';
import { recordWrite } from '../../outbox/record.ts';
import { loadVisible, loadVisibleEntry } from '../entries/lookup.ts';

/** Every field of the registration body (entryId and uploadedById are set by the server). */
export const ATTACHMENT_FIELDS = [
  'fileName', 'fileSize', 'fileType', 'objectPath',
  'category', 'isAiGenerated', 'sourceAssistantUploadId', 'sourceAssistantConversationId',
  'linkedByUserId', 'addedVia', 'attachmentSource', 'evidenceSummary',
  'removedAt', 'removedByUserId', 'removedVia',
  'replacementAttachmentId', 'replacementOfAttachmentId', 'lifecycleReason', 'attachmentStatus',
] as const;

/** What leaves the core for an attachment: the spec's fields and every registered field. */
export function presentAttachment(row: Record<string, unknown>): JsonObject {
  return toJson(row, ['organizationId', 'projectId']);
}

/**
 * Attachment records of entries. The file itself lives in object storage; the API
 * registers, lists, reads and deletes its record. No domain event exists for them
 * in the vocabulary, so writes leave an audit event only.
 */
export function createAttachmentService(db: Knex) {
  return {
    async list(actorIn: Actor | undefined, entryId: string, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      await loadVisibleEntry(db, actor, entryId);
      return paginate(db('attachments').where({ entryId }), page, pageSize, presentAttachment);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentAttachment(await loadVisible(db, actor, 'attachments', id, 'attachment'));
    },

    async register(actorIn: Actor | undefined, entryId: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const entry = await loadVisibleEntry(trx, actor, entryId, 'share');
        const [row] = await trx('attachments')
          .insert({
            ...pickColumns(body, ATTACHMENT_FIELDS), entryId, projectId: entry.projectId,
            organizationId: actor.organizationId, uploadedById: actor.userId || null,
          })
          .returning('*');
        await recordWrite(trx, actor, {
          entityType: 'attachment', action: 'created', entityId: row.id, entityName: row.fileName, projectId: row.projectId,
          metadata: { entryId },
        });
        return presentAttachment(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await db.transaction(async (trx) => {
        const row = await loadVisible(trx, actor, 'attachments', id, 'attachment', 'update');
        await trx('attachments').where({ id }).del();
        await recordWrite(trx, actor, {
          entityType: 'attachment', action: 'deleted', entityId: id, entityName: row.fileName as string,
          projectId: row.projectId as string, metadata: { entryId: row.entryId },
        });
      });
    },
  };
}
