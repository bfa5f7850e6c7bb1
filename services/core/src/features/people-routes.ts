import type { ConnectRouter } from '@connectrpc/connect';
import type { JsonObject } from '@bufbuild/protobuf';
import type { Knex } from '@cluster/db';
import {
  AgreementService, MemberService, SnapshotService, UserService, WikiService,
} from '@cluster/proto';
import { pageArgs, toListResponse } from '../lib/list.ts';
import { createAgreementService } from './agreements/service.ts';
import { createMemberService } from './members/service.ts';
import { createSnapshotService } from './snapshots/service.ts';
import { createInviteService } from './users/invite.ts';
import { createUserService } from './users/service.ts';
import { createWikiService } from './wiki/service.ts';
import { bodyOf } from '../lib/struct.ts';

const json = (v: object): JsonObject => v as JsonObject;

/**
 * Connect routes of users and invites, project members, wiki pages, agreements,
 * snapshots (people.proto; search is registered in app.ts). One registration call keeps app.ts small.
 */
export function registerPeopleRoutes(router: ConnectRouter, db: Knex): void {
  const users = createUserService(db);
  const invites = createInviteService(db);
  const members = createMemberService(db);
  const wiki = createWikiService(db);
  const agreements = createAgreementService(db);
  const snapshots = createSnapshotService(db);

  router.service(UserService, {
    async listUsers(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await users.list(req.actor, bodyOf(req.query), page, pageSize));
    },
    async getUser(req) {
      return { resource: await users.get(req.actor, req.id) };
    },
    async updateUser(req) {
      return { resource: await users.update(req.actor, req.id, bodyOf(req.body)) };
    },
    async inviteUser(req) {
      const res = await invites.invite(req.actor, bodyOf(req.body));
      return { resource: json(res), created: res.created };
    },
    async bulkInvite(req) {
      return { resource: json(await invites.bulkInvite(req.actor, bodyOf(req.body))) };
    },
  });
  router.service(MemberService, {
    async listMembers(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await members.list(req.actor, req.parentId, page, pageSize));
    },
    async addMember(req) {
      return { resource: await members.add(req.actor, req.parentId, bodyOf(req.body)), created: true };
    },
    async updateMember(req) {
      return { resource: await members.update(req.actor, req.parentId, req.id, bodyOf(req.body)) };
    },
    async removeMember(req) {
      await members.remove(req.actor, req.parentId, req.id);
      return {};
    },
  });
  router.service(WikiService, {
    async listWikiPages(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await wiki.list(req.actor, req.parentId, page, pageSize));
    },
    async createWikiPage(req) {
      return wiki.create(req.actor, req.parentId, bodyOf(req.body));
    },
    async getWikiPage(req) {
      return { resource: await wiki.get(req.actor, req.id) };
    },
    async updateWikiPage(req) {
      return { resource: await wiki.update(req.actor, req.id, bodyOf(req.body)) };
    },
    async deleteWikiPage(req) {
      await wiki.remove(req.actor, req.id);
      return {};
    },
  });
  router.service(AgreementService, {
    async listAgreements(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await agreements.list(req.actor, req.parentId, page, pageSize));
    },
    async getAgreement(req) {
      return { resource: await agreements.get(req.actor, req.id) };
    },
  });
  router.service(SnapshotService, {
    async listSnapshots(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await snapshots.list(req.actor, req.parentId, page, pageSize));
    },
  });
}
