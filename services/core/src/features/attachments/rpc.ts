import type { ServiceImpl } from '@connectrpc/connect';
import type { AttachmentCreateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { AttachmentService } from '@cluster/proto';
import type { createAttachmentService } from './service.ts';

/** AttachmentService over Connect: unpacks requests, calls the rules, packs answers. */
export function attachmentRpc(attachments: ReturnType<typeof createAttachmentService>): ServiceImpl<typeof AttachmentService> {
  return {
    async listAttachments(req) {
      return jsonPage(await attachments.list(req.actor, req.parentId, pageArgs(req)));
    },
    async registerAttachment(req) {
      return {
        resource: jsonBytes(await attachments.register(req.actor, req.parentId, bodyOf<AttachmentCreateBody>(req.body))),
        created: true,
      };
    },
    async getAttachment(req) {
      return { resource: jsonBytes(await attachments.get(req.actor, req.id)) };
    },
    async deleteAttachment(req) {
      await attachments.remove(req.actor, req.id);
      return {};
    },
  };
}
