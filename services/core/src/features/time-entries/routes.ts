import type { ServiceImpl } from '@connectrpc/connect';
import type { Knex } from '@cluster/db';
import type { TimeEntryService } from '@cluster/proto';
import { pageArgs, toListResponse } from '../../lib/list.ts';
import { createTimeEntryService } from './service.ts';
import { bodyOf } from '../../lib/struct.ts';


/** The TimeEntryService RPCs over the time-entry service (registered in app.ts). */
export function timeEntryRoutes(db: Knex): ServiceImpl<typeof TimeEntryService> {
  const timeEntries = createTimeEntryService(db);
  return {
    async listTimeEntries(req) {
      const { page, pageSize } = pageArgs(req);
      return toListResponse(await timeEntries.list(req.actor, req.parentId || undefined, bodyOf(req.query), page, pageSize));
    },
    async createTimeEntry(req) {
      return timeEntries.create(req.actor, req.parentId, bodyOf(req.body));
    },
    async getTimeEntry(req) {
      return { resource: await timeEntries.get(req.actor, req.id) };
    },
    async updateTimeEntry(req) {
      return { resource: await timeEntries.update(req.actor, req.id, bodyOf(req.body)) };
    },
    async submitTimeEntry(req) {
      return timeEntries.submit(req.actor, req.id);
    },
    async approveTimeEntry(req) {
      return timeEntries.approve(req.actor, req.id, bodyOf(req.body));
    },
    async rejectTimeEntry(req) {
      return timeEntries.reject(req.actor, req.id, bodyOf(req.body));
    },
    async unlockTimeEntry(req) {
      return timeEntries.unlock(req.actor, req.id, bodyOf(req.body));
    },
    async syncTimeEntry(req) {
      return timeEntries.sync(req.actor, bodyOf(req.body));
    },
    async getTimeSummary(req) {
      return { resource: await timeEntries.timeSummary(req.actor, req.id, bodyOf(req.query)) };
    },
    async getCostSummary(req) {
      return { resource: await timeEntries.costSummary(req.actor, req.id) };
    },
  };
}
