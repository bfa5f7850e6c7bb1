import { ListOf, ListQuery, Snapshot } from '@cluster/contracts';
import { list, listArgs } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';

/** Report snapshots: a list only; GET /snapshots/:id has no route and answers 404 not_found (spec). */
export const snapshotRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/snapshots',
    summary: 'List report snapshots of a project, with their summary',
    tag: 'snapshots',
    permission: 'read:snapshot',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Snapshot) },
    handler: async (input) => list(await input.clients.snapshots.listSnapshots(listArgs(input, input.params.id))),
  }),
];
