import type { ServiceImpl } from '@connectrpc/connect';
import type { IntegrationLinkCreateBody, IntegrationLinkUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { IntegrationLinkService } from '@cluster/proto';
import type { createIntegrationLinkService } from './service.ts';

/** IntegrationLinkService over Connect: unpacks requests, calls the rules, packs answers. */
export function integrationLinkRpc(
  links: ReturnType<typeof createIntegrationLinkService>,
): ServiceImpl<typeof IntegrationLinkService> {
  return {
    async listIntegrationLinks(req) {
      return jsonPage(await links.list(req.actor, bodyOf(req.query), pageArgs(req)));
    },
    async createIntegrationLink(req) {
      const { resource, created } = await links.create(req.actor, bodyOf<IntegrationLinkCreateBody>(req.body));
      return { resource: jsonBytes(resource), created };
    },
    async getIntegrationLink(req) {
      return { resource: jsonBytes(await links.get(req.actor, req.id)) };
    },
    async updateIntegrationLink(req) {
      return { resource: jsonBytes(await links.update(req.actor, req.id, bodyOf<IntegrationLinkUpdateBody>(req.body))) };
    },
    async deleteIntegrationLink(req) {
      await links.remove(req.actor, req.id);
      return {};
    },
  };
}
