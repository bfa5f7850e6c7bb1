import type { ConnectRouter } from '@connectrpc/connect';
import type { Knex } from '@cluster/db';
import { EntryService } from '@cluster/proto';
import { pageArgs, toListResponse } from '../../lib/list.ts';
import { bodyOf } from '../../lib/struct.ts';
import { createEntryService } from './service.ts';

/** Registers EntryService on the core's Connect router. */
export function registerEntryRpc(router: ConnectRouter, db: Knex): void {
  const entries = createEntryService(db);
  router.service(EntryService, {
    async listEntries(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await entries.list(req.actor, req.parentId, bodyOf(req.query), page, pageSize));
    },
    async createEntry(req) {
      return { resource: await entries.create(req.actor, req.parentId, bodyOf(req.body)), created: true };
    },
    async getEntry(req) {
      return { resource: await entries.get(req.actor, req.id) };
    },
    async updateEntry(req) {
      return { resource: await entries.update(req.actor, req.id, bodyOf(req.body)) };
    },
    async deleteEntry(req) {
      await entries.remove(req.actor, req.id);
      return {};
    },
  });
}
