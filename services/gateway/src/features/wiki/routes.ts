import { ListOf, ListQuery, WikiPage, WikiPageCreate, WikiPageUpdate } from '@cluster/contracts';
import { list, listArgs, noContent, ok, upserted } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** Wiki pages of a project. */
export const wikiRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/wiki-pages',
    summary: 'List wiki pages of a project',
    tag: 'wiki',
    permission: 'read:wiki',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(WikiPage) },
    handler: async (input) => list(await input.clients.wiki.listWikiPages(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/wiki-pages',
    summary: 'Create a wiki page (idempotent with externalRef)',
    tag: 'wiki',
    permission: 'write:wiki',
    body: WikiPageCreate,
    response: { status: 201, schema: WikiPage, description: 'Created (201) or the page of the same externalRef (200)' },
    handler: async ({ actor, params, body, clients }) =>
      upserted(await clients.wiki.createWikiPage({ actor, parentId: params.id, body: toStruct(body) })),
  }),
  defineRoute({
    method: 'GET',
    path: '/wiki-pages/:id',
    summary: 'Get a wiki page with its full content',
    tag: 'wiki',
    permission: 'read:wiki',
    response: { status: 200, schema: WikiPage },
    handler: async ({ actor, params, clients }) => ok((await clients.wiki.getWikiPage({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/wiki-pages/:id',
    summary: 'Update a wiki page',
    tag: 'wiki',
    permission: 'write:wiki',
    body: WikiPageUpdate,
    response: { status: 200, schema: WikiPage },
    handler: async ({ actor, params, body, clients }) =>
      ok((await clients.wiki.updateWikiPage({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/wiki-pages/:id',
    summary: 'Delete a wiki page',
    tag: 'wiki',
    permission: 'delete:wiki',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.wiki.deleteWikiPage({ actor, id: params.id });
      return noContent();
    },
  }),
];
