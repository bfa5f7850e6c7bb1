import type { ServiceImpl } from '@connectrpc/connect';
import type { IntegrationLinkCreateBody, IntegrationLinkUpdateBody } from '@cluster/contracts';
import { bodyOf, pageArgs } from '@cluster/platform';
import type { IntegrationLinkService } from '@cluster/proto';
import type { createIntegrationLinkService } from './service.ts';

/** IntegrationLinkService over Connect: unpacks requests, calls the rules, packs answers. */
export function integrationLinkRpc(
  links: ReturnType<typeof createIntegrationLinkService>,
): ServiceImpl<typeof IntegrationLinkService> {
  return {
    async listIntegrationLinks(req) {
      return links.list(req.actor, bodyOf(req.query), pageArgs(req));
    },
    async createIntegrationLink(req) {
      return links.create(req.actor, bodyOf<IntegrationLinkCreateBody>(req.body));
    },
    async getIntegrationLink(req) {
      return { resource: await links.get(req.actor, req.id) };
    },
    async updateIntegrationLink(req) {
      return { resource: await links.update(req.actor, req.id, bodyOf<IntegrationLinkUpdateBody>(req.body)) };
    },
    async deleteIntegrationLink(req) {
      await links.remove(req.actor, req.id);
      return {};
    },
  };
}
