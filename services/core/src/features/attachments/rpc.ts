import type { ConnectRouter } from '@connectrpc/connect';
import type { Knex } from '@cluster/db';
import { AttachmentService } from '@cluster/proto';
import { pageArgs, toListResponse } from '../../lib/list.ts';
import { bodyOf } from '../../lib/struct.ts';
import { createAttachmentService } from './service.ts';

/** Registers AttachmentService on the core's Connect router. */
export function registerAttachmentRpc(router: ConnectRouter, db: Knex): void {
  const attachments = createAttachmentService(db);
  router.service(AttachmentService, {
    async listAttachments(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await attachments.list(req.actor, req.parentId, page, pageSize));
    },
    async registerAttachment(req) {
      return { resource: await attachments.register(req.actor, req.parentId, bodyOf(req.body)), created: true };
    },
    async getAttachment(req) {
      return { resource: await attachments.get(req.actor, req.id) };
    },
    async deleteAttachment(req) {
      await attachments.remove(req.actor, req.id);
      return {};
    },
  });
}
