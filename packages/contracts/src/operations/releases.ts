import { ListOf, ListQuery } from '../resources/common.ts';
import { Release, ReleaseCreate, ReleaseFilters, ReleaseUpdate } from '../resources/releases.ts';
import type { Operation } from './operation.ts';

/** Releases of a project. */
export const releaseOperations: Operation[] = [
  {
    method: 'GET',
    path: '/projects/:id/releases',
    summary: 'List releases of a project',
    tag: 'releases',
    operation: 'cluster.core.v1.ReleaseService/ListReleases',
    tool: { name: 'list_releases', title: 'List releases', description: 'Releases of a project, with filters.' },
    permission: 'read:release',
    query: ListQuery(ReleaseFilters),
    response: { status: 200, schema: ListOf(Release) },
  },
  {
    method: 'POST',
    path: '/projects/:id/releases',
    summary: 'Create a release',
    tag: 'releases',
    operation: 'cluster.core.v1.ReleaseService/CreateRelease',
    tool: { name: 'create_release', title: 'Create a release', description: 'Creates a release in a project.' },
    permission: 'write:release',
    body: ReleaseCreate,
    response: { status: 201, schema: Release },
  },
  {
    method: 'GET',
    path: '/releases/:id',
    summary: 'Get a release',
    tag: 'releases',
    operation: 'cluster.core.v1.ReleaseService/GetRelease',
    tool: { name: 'get_release', title: 'Get a release', description: 'One release by id.' },
    permission: 'read:release',
    response: { status: 200, schema: Release },
  },
  {
    method: 'PATCH',
    path: '/releases/:id',
    summary: 'Update a release',
    tag: 'releases',
    operation: 'cluster.core.v1.ReleaseService/UpdateRelease',
    tool: {
      name: 'update_release',
      title: 'Update a release',
      description: 'Changes the given fields of a release.',
      destructive: true,
    },
    permission: 'write:release',
    body: ReleaseUpdate,
    response: { status: 200, schema: Release },
  },
  {
    method: 'DELETE',
    path: '/releases/:id',
    summary: 'Delete a release',
    tag: 'releases',
    operation: 'cluster.core.v1.ReleaseService/DeleteRelease',
    tool: false,
    permission: 'delete:release',
    response: { status: 204, description: 'Deleted' },
  },
];
