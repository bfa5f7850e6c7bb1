import type { ConnectRouter } from '@connectrpc/connect';
import type { Knex } from '@cluster/db';
import { ReleaseService } from '@cluster/proto';
import { pageArgs, toListResponse } from '../../lib/list.ts';
import { bodyOf } from '../../lib/struct.ts';
import { createReleaseService } from './service.ts';

/** Registers ReleaseService on the core's Connect router. */
export function registerReleaseRpc(router: ConnectRouter, db: Knex): void {
  const releases = createReleaseService(db);
  router.service(ReleaseService, {
    async listReleases(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await releases.list(req.actor, req.parentId, bodyOf(req.query), page, pageSize));
    },
    async createRelease(req) {
      return { resource: await releases.create(req.actor, req.parentId, bodyOf(req.body)), created: true };
    },
    async getRelease(req) {
      return { resource: await releases.get(req.actor, req.id) };
    },
    async updateRelease(req) {
      return { resource: await releases.update(req.actor, req.id, bodyOf(req.body)) };
    },
    async deleteRelease(req) {
      await releases.remove(req.actor, req.id);
      return {};
    },
  });
}
