import type { ServiceImpl } from '@connectrpc/connect';
import type { MemberCreateBody, MemberUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { MemberService } from '@cluster/proto';
import type { createMemberService } from './service.ts';

/** MemberService over Connect: unpacks requests, calls the rules, packs answers. */
export function memberRpc(members: ReturnType<typeof createMemberService>): ServiceImpl<typeof MemberService> {
  return {
    async listMembers(req) {
      return jsonPage(await members.list(req.actor, req.parentId, pageArgs(req)));
    },
    async addMember(req) {
      return {
        resource: jsonBytes(await members.add(req.actor, req.parentId, bodyOf<MemberCreateBody>(req.body))),
        created: true,
      };
    },
    async updateMember(req) {
      return { resource: jsonBytes(await members.update(req.actor, req.parentId, req.id, bodyOf<MemberUpdateBody>(req.body))) };
    },
    async removeMember(req) {
      await members.remove(req.actor, req.parentId, req.id);
      return {};
    },
  };
}
