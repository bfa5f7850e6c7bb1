import type { ServiceImpl } from '@connectrpc/connect';
import type { InviteRequestBody, UserUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { UserService } from '@cluster/proto';
import type { BulkInviteCall, createInviteService } from './invite.ts';
import type { createUserService } from './service.ts';

/** UserService over Connect (users and their invitations): unpacks requests, calls the rules, packs answers. */
export function userRpc(
  users: ReturnType<typeof createUserService>,
  invites: ReturnType<typeof createInviteService>,
): ServiceImpl<typeof UserService> {
  return {
    async listUsers(req) {
      return jsonPage(await users.list(req.actor, bodyOf(req.query), pageArgs(req)));
    },
    async getUser(req) {
      return { resource: jsonBytes(await users.get(req.actor, req.id)) };
    },
    async updateUser(req) {
      return { resource: jsonBytes(await users.update(req.actor, req.id, bodyOf<UserUpdateBody>(req.body))) };
    },
    async inviteUser(req) {
      const res = await invites.invite(req.actor, bodyOf<InviteRequestBody>(req.body));
      return { resource: jsonBytes(res), created: res.created };
    },
    async bulkInvite(req) {
      return { resource: jsonBytes(await invites.bulkInvite(req.actor, bodyOf<BulkInviteCall>(req.body))) };
    },
  };
}
