import type { ServiceImpl } from '@connectrpc/connect';
import type { CommentCreateBody, CommentUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { CommentService } from '@cluster/proto';
import type { createCommentService } from './service.ts';

/** CommentService over Connect: unpacks requests, calls the rules, packs answers. */
export function commentRpc(comments: ReturnType<typeof createCommentService>): ServiceImpl<typeof CommentService> {
  return {
    async listComments(req) {
      return jsonPage(await comments.list(req.actor, req.parentId, pageArgs(req)));
    },
    async createComment(req) {
      return {
        resource: jsonBytes(await comments.create(req.actor, req.parentId, bodyOf<CommentCreateBody>(req.body))),
        created: true,
      };
    },
    async getComment(req) {
      return { resource: jsonBytes(await comments.get(req.actor, req.id)) };
    },
    async updateComment(req) {
      return { resource: jsonBytes(await comments.update(req.actor, req.id, bodyOf<CommentUpdateBody>(req.body))) };
    },
    async deleteComment(req) {
      await comments.remove(req.actor, req.id);
      return {};
    },
  };
}
