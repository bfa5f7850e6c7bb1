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
    permission: 'read:release',
    query: ListQuery(ReleaseFilters),
    response: { status: 200, schema: ListOf(Release) },
    handler: async (input) => list(await input.clients.releases.listReleases(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/releases',
    summary: 'Create a release',
    tag: 'releases',
    permission: 'write:release',
    body: ReleaseCreate,
    response: { status: 201, schema: Release },
    handler: async ({ actor, params, body, clients }) =>
      created((await clients.releases.createRelease({ actor, parentId: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/releases/:id',
    summary: 'Get a release',
    tag: 'releases',
    permission: 'read:release',
    response: { status: 200, schema: Release },
    handler: async ({ actor, params, clients }) => ok((await clients.releases.getRelease({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/releases/:id',
    summary: 'Update a release',
    tag: 'releases',
    permission: 'write:release',
    body: ReleaseUpdate,
    response: { status: 200, schema: Release },
    handler: async ({ actor, params, body, clients }) =>
      ok((await clients.releases.updateRelease({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/releases/:id',
    summary: 'Delete a release',
    tag: 'releases',
    permission: 'delete:release',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.releases.deleteRelease({ actor, id: params.id });
      return noContent();
    },
  }),
];
