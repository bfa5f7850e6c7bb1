import { defineRoutes } from '../http/route.ts';
import { ListOf, ListQuery } from '../schemas/common.ts';
import { Snapshot } from '../schemas/reports.ts';
import { list, listArgs } from './helpers.ts';

/** Report snapshots: a list only; GET /snapshots/:id has no route and answers 404 not_found (spec). */
export const snapshotRoutes = defineRoutes([
  {
    method: 'GET', path: '/projects/:id/snapshots', summary: 'List report snapshots of a project, with their summary', tag: 'snapshots',
    permission: 'read:snapshot', query: ListQuery(), response: { status: 200, schema: ListOf(Snapshot) },
    handler: async (input) => list(await input.clients.snapshots.listSnapshots(listArgs(input, input.params.id))),
  },
]);
