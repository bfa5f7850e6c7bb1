import type { ServiceImpl } from '@connectrpc/connect';
import type { WikiPageCreateBody, WikiPageUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { WikiService } from '@cluster/proto';
import type { createWikiService } from './service.ts';

/** WikiService over Connect: unpacks requests, calls the rules, packs answers. */
export function wikiRpc(wiki: ReturnType<typeof createWikiService>): ServiceImpl<typeof WikiService> {
  return {
    async listWikiPages(req) {
      return jsonPage(await wiki.list(req.actor, req.parentId, pageArgs(req)));
    },
    async createWikiPage(req) {
      const { resource, created } = await wiki.create(req.actor, req.parentId, bodyOf<WikiPageCreateBody>(req.body));
      return { resource: jsonBytes(resource), created };
    },
    async getWikiPage(req) {
      return { resource: jsonBytes(await wiki.get(req.actor, req.id)) };
    },
    async updateWikiPage(req) {
      return { resource: jsonBytes(await wiki.update(req.actor, req.id, bodyOf<WikiPageUpdateBody>(req.body))) };
    },
    async deleteWikiPage(req) {
      await wiki.remove(req.actor, req.id);
      return {};
    },
  };
}
