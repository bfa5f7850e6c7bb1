import type { ServiceImpl } from '@connectrpc/connect';
import type { WikiPageCreateBody, WikiPageUpdateBody } from '@cluster/contracts';
import { bodyOf, pageArgs } from '@cluster/platform';
import type { WikiService } from '@cluster/proto';
import type { createWikiService } from './service.ts';

/** WikiService over Connect: unpacks requests, calls the rules, packs answers. */
export function wikiRpc(wiki: ReturnType<typeof createWikiService>): ServiceImpl<typeof WikiService> {
  return {
    async listWikiPages(req) {
      return wiki.list(req.actor, req.parentId, pageArgs(req));
    },
    async createWikiPage(req) {
      return wiki.create(req.actor, req.parentId, bodyOf<WikiPageCreateBody>(req.body));
    },
    async getWikiPage(req) {
      return { resource: await wiki.get(req.actor, req.id) };
    },
    async updateWikiPage(req) {
      return { resource: await wiki.update(req.actor, req.id, bodyOf<WikiPageUpdateBody>(req.body)) };
    },
    async deleteWikiPage(req) {
      await wiki.remove(req.actor, req.id);
      return {};
    },
  };
}
