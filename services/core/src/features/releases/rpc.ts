import type { ServiceImpl } from '@connectrpc/connect';
import type { ReleaseCreateBody, ReleaseUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { ReleaseService } from '@cluster/proto';
import type { createReleaseService } from './service.ts';

/** ReleaseService over Connect: unpacks requests, calls the rules, packs answers. */
export function releaseRpc(releases: ReturnType<typeof createReleaseService>): ServiceImpl<typeof ReleaseService> {
  return {
    async listReleases(req) {
      return jsonPage(await releases.list(req.actor, req.parentId, bodyOf(req.query), pageArgs(req)));
    },
    async createRelease(req) {
      return {
        resource: jsonBytes(await releases.create(req.actor, req.parentId, bodyOf<ReleaseCreateBody>(req.body))),
        created: true,
      };
    },
    async getRelease(req) {
      return { resource: jsonBytes(await releases.get(req.actor, req.id)) };
    },
    async updateRelease(req) {
      return { resource: jsonBytes(await releases.update(req.actor, req.id, bodyOf<ReleaseUpdateBody>(req.body))) };
    },
    async deleteRelease(req) {
      await releases.remove(req.actor, req.id);
      return {};
    },
  };
}
