import { ATTACHMENT_WRITABLE_FIELDS, type AttachmentCreateBody } from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { requireActor, type PageArgs, presentPage } from '@cluster/platform';
import { assertVisible } from '../../shared/access.ts';
import { pickFields } from '../../shared/fields.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { visibleEntry } from '../entries/scope.ts';
import { presentAttachment } from './presenter.ts';

/**
 * Attachment records of entries. The file itself lives in object storage; the API
 * registers, lists, reads and deletes its record. No domain event exists for them
 * in the vocabulary, so writes leave an audit event only. Rules only; SQL is in the store.
 */
export function createAttachmentService(stores: Stores) {
  return {
    async list(actorIn: Actor | undefined, entryId: string, page: PageArgs) {
      const actor = requireActor(actorIn);
      await visibleEntry(stores.entries, actor, entryId);
      return presentPage(await stores.attachments.list(entryId, page), presentAttachment);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentAttachment(assertVisible(actor, await stores.attachments.find(id), 'attachment'));
    },

    async register(actorIn: Actor | undefined, entryId: string, body: AttachmentCreateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        // Shared lock: the entry cannot be deleted under its new attachment.
        const entry = await visibleEntry(tx.entries, actor, entryId, 'share');
        const row = await tx.attachments.insert({
          ...pickFields(body, ATTACHMENT_WRITABLE_FIELDS),
          entryId,
          projectId: entry.projectId,
          organizationId: actor.organizationId,
          uploadedById: actor.userId || null,
        });
        await tx.record(
          apiWrite(actor, {
            entityType: 'attachment',
            action: 'created',
            entityId: row.id,
            entityName: row.fileName,
            projectId: row.projectId,
            metadata: { entryId },
          }),
        );
        return presentAttachment(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = assertVisible(actor, await tx.attachments.find(id, { lock: 'update' }), 'attachment');
        await tx.attachments.remove(id);
        await tx.record(
          apiWrite(actor, {
            entityType: 'attachment',
            action: 'deleted',
            entityId: id,
            entityName: row.fileName,
            projectId: row.projectId,
            metadata: { entryId: row.entryId },
          }),
        );
      });
    },
  };
}
