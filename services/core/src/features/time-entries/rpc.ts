import type { ServiceImpl } from '@connectrpc/connect';
import type {
  SyncTimeEntryBody,
  TimeEntryApproveBody,
  TimeEntryCreateBody,
  TimeEntryReasonBody,
  TimeEntryUpdateBody,
} from '@cluster/contracts';
import { bodyOf, pageArgs } from '@cluster/platform';
import type { TimeEntryService } from '@cluster/proto';
import type { createTimeEntryService } from './service.ts';

/** TimeEntryService over Connect: unpacks requests, calls the rules, packs answers. */
export function timeEntryRpc(timeEntries: ReturnType<typeof createTimeEntryService>): ServiceImpl<typeof TimeEntryService> {
  return {
    async listTimeEntries(req) {
      return timeEntries.list(req.actor, req.parentId || undefined, bodyOf(req.query), pageArgs(req));
    },
    async createTimeEntry(req) {
      return timeEntries.create(req.actor, req.parentId, bodyOf<TimeEntryCreateBody>(req.body));
    },
    async getTimeEntry(req) {
      return { resource: await timeEntries.get(req.actor, req.id) };
    },
    async updateTimeEntry(req) {
      return { resource: await timeEntries.update(req.actor, req.id, bodyOf<TimeEntryUpdateBody>(req.body)) };
    },
    async submitTimeEntry(req) {
      return timeEntries.submit(req.actor, req.id);
    },
    async approveTimeEntry(req) {
      return timeEntries.approve(req.actor, req.id, bodyOf<TimeEntryApproveBody>(req.body));
    },
    async rejectTimeEntry(req) {
      return timeEntries.reject(req.actor, req.id, bodyOf<TimeEntryReasonBody>(req.body));
    },
    async unlockTimeEntry(req) {
      return timeEntries.unlock(req.actor, req.id, bodyOf<TimeEntryReasonBody>(req.body));
    },
    async syncTimeEntry(req) {
      return timeEntries.sync(req.actor, bodyOf<SyncTimeEntryBody>(req.body));
    },
    async getTimeSummary(req) {
      return { resource: await timeEntries.timeSummary(req.actor, req.id, bodyOf(req.query)) };
    },
    async getCostSummary(req) {
      return { resource: await timeEntries.costSummary(req.actor, req.id) };
    },
  };
}
