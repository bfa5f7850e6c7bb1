import { ReleaseService } from '@cluster/proto';
import { ListOf, ListQuery, Release, ReleaseCreate, ReleaseFilters, ReleaseUpdate } from '@cluster/contracts';
import { created, list, listArgs, noContent, ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** Releases of a project. */
export const releaseRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/releases',
    summary: 'List releases of a project',
    tag: 'releases',
    service: ReleaseService,
    rpc: 'listReleases',
    tool: { name: 'list_releases', title: 'List releases', description: 'Releases of a project, with filters.' },
    permission: 'read:release',
    query: ListQuery(ReleaseFilters),
    response: { status: 200, schema: ListOf(Release) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/releases',
    summary: 'Create a release',
    tag: 'releases',
    service: ReleaseService,
    rpc: 'createRelease',
    tool: { name: 'create_release', title: 'Create a release', description: 'Creates a release in a project.' },
    permission: 'write:release',
    body: ReleaseCreate,
    response: { status: 201, schema: Release },
    handler: async ({ actor, params, body, call }) =>
      created((await call({ actor, parentId: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/releases/:id',
    summary: 'Get a release',
    tag: 'releases',
    service: ReleaseService,
    rpc: 'getRelease',
    tool: { name: 'get_release', title: 'Get a release', description: 'One release by id.' },
    permission: 'read:release',
    response: { status: 200, schema: Release },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/releases/:id',
    summary: 'Update a release',
    tag: 'releases',
    service: ReleaseService,
    rpc: 'updateRelease',
    tool: {
      name: 'update_release',
      title: 'Update a release',
      description: 'Changes the given fields of a release.',
      destructive: true,
    },
    permission: 'write:release',
    body: ReleaseUpdate,
    response: { status: 200, schema: Release },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/releases/:id',
    summary: 'Delete a release',
    tag: 'releases',
    service: ReleaseService,
    rpc: 'deleteRelease',
    tool: false,
    permission: 'delete:release',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, call }) => {
      await call({ actor, id: params.id });
      return noContent();
    },
  }),
];
