import { defineRoutes } from '../http/route.ts';
import { ListOf, ListQuery } from '../schemas/common.ts';
import { Release, ReleaseCreate, ReleaseFilters, ReleaseUpdate } from '../schemas/releases.ts';
import { created, list, listArgs, noContent, ok } from './helpers.ts';

/** Releases of a project. */
export const releaseRoutes = defineRoutes([
  {
    method: 'GET', path: '/projects/:id/releases', summary: 'List releases of a project', tag: 'releases',
    permission: 'read:release', query: ListQuery(ReleaseFilters), response: { status: 200, schema: ListOf(Release) },
    handler: async (input) => list(await input.clients.releases.listReleases(listArgs(input, input.params.id))),
  },
  {
    method: 'POST', path: '/projects/:id/releases', summary: 'Create a release', tag: 'releases', permission: 'write:release',
    body: ReleaseCreate, response: { status: 201, schema: Release },
    handler: async ({ actor, params, body, clients }) =>
      created((await clients.releases.createRelease({ actor, parentId: params.id, body: body as never })).resource),
  },
  {
    method: 'GET', path: '/releases/:id', summary: 'Get a release', tag: 'releases', permission: 'read:release',
    response: { status: 200, schema: Release },
    handler: async ({ actor, params, clients }) => ok((await clients.releases.getRelease({ actor, id: params.id })).resource),
  },
  {
    method: 'PATCH', path: '/releases/:id', summary: 'Update a release', tag: 'releases', permission: 'write:release',
    body: ReleaseUpdate, response: { status: 200, schema: Release },
    handler: async ({ actor, params, body, clients }) =>
      ok((await clients.releases.updateRelease({ actor, id: params.id, body: body as never })).resource),
  },
  {
    method: 'DELETE', path: '/releases/:id', summary: 'Delete a release', tag: 'releases', permission: 'delete:release',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.releases.deleteRelease({ actor, id: params.id });
      return noContent();
    },
  },
]);
