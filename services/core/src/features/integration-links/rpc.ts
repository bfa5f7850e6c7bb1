import type { ConnectRouter } from '@connectrpc/connect';
import type { Knex } from '@cluster/db';
import { IntegrationLinkService } from '@cluster/proto';
import { pageArgs, toListResponse } from '../../lib/list.ts';
import { bodyOf } from '../../lib/struct.ts';
import { createIntegrationLinkService } from './service.ts';

/** Registers IntegrationLinkService on the core's Connect router. */
export function registerIntegrationLinkRpc(router: ConnectRouter, db: Knex): void {
  const links = createIntegrationLinkService(db);
  router.service(IntegrationLinkService, {
    async listIntegrationLinks(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await links.list(req.actor, bodyOf(req.query), page, pageSize));
    },
    async createIntegrationLink(req) {
      return links.create(req.actor, bodyOf(req.body));
    },
    async getIntegrationLink(req) {
      return { resource: await links.get(req.actor, req.id) };
    },
    async updateIntegrationLink(req) {
      return { resource: await links.update(req.actor, req.id, bodyOf(req.body)) };
    },
    async deleteIntegrationLink(req) {
      await links.remove(req.actor, req.id);
      return {};
    },
  });
}
