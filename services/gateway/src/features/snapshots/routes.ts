import { SnapshotService } from '@cluster/proto';
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
    service: SnapshotService,
    rpc: 'listSnapshots',
    tool: false,
    permission: 'read:snapshot',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Snapshot) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
];
