import type { ConnectRouter } from '@connectrpc/connect';
import type { Knex } from '@cluster/db';
import { CommentService } from '@cluster/proto';
import { pageArgs, toListResponse } from '../../lib/list.ts';
import { bodyOf } from '../../lib/struct.ts';
import { createCommentService } from './service.ts';

/** Registers CommentService on the core's Connect router. */
export function registerCommentRpc(router: ConnectRouter, db: Knex): void {
  const comments = createCommentService(db);
  router.service(CommentService, {
    async listComments(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await comments.list(req.actor, req.parentId, page, pageSize));
    },
    async createComment(req) {
      return { resource: await comments.create(req.actor, req.parentId, bodyOf(req.body)), created: true };
    },
    async getComment(req) {
      return { resource: await comments.get(req.actor, req.id) };
    },
    async updateComment(req) {
      return { resource: await comments.update(req.actor, req.id, bodyOf(req.body)) };
    },
    async deleteComment(req) {
      await comments.remove(req.actor, req.id);
      return {};
    },
  });
}
