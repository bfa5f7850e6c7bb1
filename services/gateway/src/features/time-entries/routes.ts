import {
  APPROVER_ROLES, ApproveBody, CostSummary, ListOf, ListQuery, ReasonBody, SubmitBody, SyncTimeEntry, SyncTimeEntryResponse,
  TimeEntry, TimeEntryCreate, TimeEntryFilters, TimeEntryUpdate, TimeEntryWithLinks, TimeSummary, TimeSummaryQuery,
} from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { list, listArgs, ok, upserted } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** The request of a write on one time entry: its id and the body as a Struct. */
const write = ({ actor, params, body }: { actor: Actor; params: Record<string, string>; body: object }) =>
  ({ actor, id: params.id, body: toStruct(body) });

/** Time entries: lists, create (upsert by externalRef), edits, the approval transitions, sync and summaries. */
export const timeEntryRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET', path: '/projects/:id/time-entries', summary: 'List time entries of a project', tag: 'time-entries',
    permission: 'read:time_entry', query: ListQuery(TimeEntryFilters), response: { status: 200, schema: ListOf(TimeEntry) },
    handler: async (input) => list(await input.clients.timeEntries.listTimeEntries(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST', path: '/projects/:id/time-entries', summary: 'Log time on a project', tag: 'time-entries',
    permission: 'write:time_entry', body: TimeEntryCreate,
    response: { status: 201, schema: TimeEntry, description: 'Created (200 when an externalRef matched an existing entry)' },
    handler: async ({ actor, params, body, clients }) =>
      upserted(await clients.timeEntries.createTimeEntry({ actor, parentId: params.id, body: toStruct(body) })),
  }),
  defineRoute({
    method: 'GET', path: '/time-entries', summary: 'List time entries of the organization', tag: 'time-entries',
    permission: 'read:time_entry', orgKeyOnly: true, query: ListQuery(TimeEntryFilters), response: { status: 200, schema: ListOf(TimeEntry) },
    handler: async (input) => list(await input.clients.timeEntries.listTimeEntries(listArgs(input))),
  }),
  defineRoute({
    method: 'POST', path: '/time-entries/sync', summary: 'Synchronise a time entry from an external system', tag: 'time-entries',
    permission: 'write:time_entry', body: SyncTimeEntry,
    response: { status: 201, schema: SyncTimeEntryResponse, description: 'Created (200 on an idempotent replay, created false)' },
    handler: async ({ actor, body, clients }) => upserted(await clients.timeEntries.syncTimeEntry({ actor, body: toStruct(body) })),
  }),
  defineRoute({
    method: 'GET', path: '/time-entries/:id', summary: 'Get a time entry with its integration links', tag: 'time-entries',
    permission: 'read:time_entry', response: { status: 200, schema: TimeEntryWithLinks },
    handler: async ({ actor, params, clients }) => ok((await clients.timeEntries.getTimeEntry({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH', path: '/time-entries/:id', summary: 'Edit a draft or rejected time entry', tag: 'time-entries',
    permission: 'write:time_entry', body: TimeEntryUpdate, response: { status: 200, schema: TimeEntry },
    handler: async (input) => ok((await input.clients.timeEntries.updateTimeEntry(write(input))).resource),
  }),
  defineRoute({
    method: 'POST', path: '/time-entries/:id/submit', summary: 'Submit a time entry for approval', tag: 'time-entries',
    permission: 'write:time_entry', body: SubmitBody, response: { status: 200, schema: TimeEntry },
    handler: async (input) => ok((await input.clients.timeEntries.submitTimeEntry(write(input))).resource),
  }),
  defineRoute({
    method: 'POST', path: '/time-entries/:id/approve', summary: 'Approve (and lock) a submitted time entry', tag: 'time-entries',
    permission: 'write:time_entry', roles: APPROVER_ROLES, body: ApproveBody, response: { status: 200, schema: TimeEntry },
    handler: async (input) => ok((await input.clients.timeEntries.approveTimeEntry(write(input))).resource),
  }),
  defineRoute({
    method: 'POST', path: '/time-entries/:id/reject', summary: 'Reject a submitted time entry', tag: 'time-entries',
    permission: 'write:time_entry', roles: APPROVER_ROLES, body: ReasonBody, response: { status: 200, schema: TimeEntry },
    handler: async (input) => ok((await input.clients.timeEntries.rejectTimeEntry(write(input))).resource),
  }),
  defineRoute({
    method: 'POST', path: '/time-entries/:id/unlock', summary: 'Unlock a locked time entry back to draft', tag: 'time-entries',
    permission: 'write:time_entry', roles: APPROVER_ROLES, body: ReasonBody, response: { status: 200, schema: TimeEntry },
    handler: async (input) => ok((await input.clients.timeEntries.unlockTimeEntry(write(input))).resource),
  }),
  defineRoute({
    method: 'GET', path: '/projects/:id/time-summary', summary: 'Time totals of a project', tag: 'time-entries',
    permission: 'read:time_entry', query: TimeSummaryQuery, response: { status: 200, schema: TimeSummary },
    handler: async ({ actor, params, query, clients }) =>
      ok((await clients.timeEntries.getTimeSummary({ actor, id: params.id, query: toStruct(query) })).resource),
  }),
  defineRoute({
    method: 'GET', path: '/projects/:id/cost-summary', summary: 'Cost totals of a project', tag: 'time-entries',
    permission: 'read:project', response: { status: 200, schema: CostSummary },
    handler: async ({ actor, params, clients }) => ok((await clients.timeEntries.getCostSummary({ actor, id: params.id })).resource),
  }),
];
