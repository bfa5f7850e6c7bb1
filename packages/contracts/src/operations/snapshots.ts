import { ListOf, ListQuery } from '../resources/common.ts';
import { Snapshot } from '../resources/snapshots.ts';
import type { Operation } from './operation.ts';

/** Report snapshots: a list only; GET /snapshots/:id has no route and answers 404 not_found (spec). */
export const snapshotOperations: Operation[] = [
  {
    method: 'GET',
    path: '/projects/:id/snapshots',
    summary: 'List report snapshots of a project, with their summary',
    tag: 'snapshots',
    operation: 'cluster.core.v1.SnapshotService/ListSnapshots',
    tool: false,
    permission: 'read:snapshot',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Snapshot) },
  },
];
