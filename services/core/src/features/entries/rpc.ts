import type { ServiceImpl } from '@connectrpc/connect';
import type { EntryCreateBody, EntryUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { EntryService } from '@cluster/proto';
import type { createEntryService } from './service.ts';

/** EntryService over Connect: unpacks requests, calls the rules, packs answers. */
export function entryRpc(entries: ReturnType<typeof createEntryService>): ServiceImpl<typeof EntryService> {
  return {
    async listEntries(req) {
      return jsonPage(await entries.list(req.actor, req.parentId, bodyOf(req.query), pageArgs(req)));
    },
    async createEntry(req) {
      return {
        resource: jsonBytes(await entries.create(req.actor, req.parentId, bodyOf<EntryCreateBody>(req.body))),
        created: true,
      };
    },
    async getEntry(req) {
      return { resource: jsonBytes(await entries.get(req.actor, req.id)) };
    },
    async updateEntry(req) {
      return { resource: jsonBytes(await entries.update(req.actor, req.id, bodyOf<EntryUpdateBody>(req.body))) };
    },
    async deleteEntry(req) {
      await entries.remove(req.actor, req.id);
      return {};
    },
  };
}
