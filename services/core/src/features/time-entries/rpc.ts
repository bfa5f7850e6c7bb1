import type { ServiceImpl } from '@connectrpc/connect';
import type {
  SyncTimeEntryBody,
  TimeEntryApproveBody,
  TimeEntryCreateBody,
  TimeEntryReasonBody,
  TimeEntryUpdateBody,
} from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { TimeEntryService } from '@cluster/proto';
import type { createTimeEntryService } from './service.ts';

/** TimeEntryService over Connect: unpacks requests, calls the rules, packs answers. */
export function timeEntryRpc(timeEntries: ReturnType<typeof createTimeEntryService>): ServiceImpl<typeof TimeEntryService> {
  return {
    async listTimeEntries(req) {
      return jsonPage(await timeEntries.list(req.actor, req.parentId || undefined, bodyOf(req.query), pageArgs(req)));
    },
    async createTimeEntry(req) {
      const { resource, created } = await timeEntries.create(req.actor, req.parentId, bodyOf<TimeEntryCreateBody>(req.body));
      return { resource: jsonBytes(resource), created };
    },
    async getTimeEntry(req) {
      return { resource: jsonBytes(await timeEntries.get(req.actor, req.id)) };
    },
    async updateTimeEntry(req) {
      return { resource: jsonBytes(await timeEntries.update(req.actor, req.id, bodyOf<TimeEntryUpdateBody>(req.body))) };
    },
    async submitTimeEntry(req) {
      const { resource } = await timeEntries.submit(req.actor, req.id);
      return { resource: jsonBytes(resource) };
    },
    async approveTimeEntry(req) {
      const { resource } = await timeEntries.approve(req.actor, req.id, bodyOf<TimeEntryApproveBody>(req.body));
      return { resource: jsonBytes(resource) };
    },
    async rejectTimeEntry(req) {
      const { resource } = await timeEntries.reject(req.actor, req.id, bodyOf<TimeEntryReasonBody>(req.body));
      return { resource: jsonBytes(resource) };
    },
    async unlockTimeEntry(req) {
      const { resource } = await timeEntries.unlock(req.actor, req.id, bodyOf<TimeEntryReasonBody>(req.body));
      return { resource: jsonBytes(resource) };
    },
    async syncTimeEntry(req) {
      const { resource, created } = await timeEntries.sync(req.actor, bodyOf<SyncTimeEntryBody>(req.body));
      return { resource: jsonBytes(resource), created };
    },
    async getTimeSummary(req) {
      return { resource: jsonBytes(await timeEntries.timeSummary(req.actor, req.id, bodyOf(req.query))) };
    },
    async getCostSummary(req) {
      return { resource: jsonBytes(await timeEntries.costSummary(req.actor, req.id)) };
    },
  };
}
