import { WikiService } from '@cluster/proto';
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
    service: WikiService,
    rpc: 'listWikiPages',
    tool: { name: 'list_wiki_pages', title: 'List wiki pages', description: 'Wiki pages of a project.' },
    permission: 'read:wiki',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(WikiPage) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/wiki-pages',
    summary: 'Create a wiki page (idempotent with externalRef)',
    tag: 'wiki',
    service: WikiService,
    rpc: 'createWikiPage',
    tool: { name: 'create_wiki_page', title: 'Create a wiki page', description: 'Creates a wiki page in a project.' },
    permission: 'write:wiki',
    body: WikiPageCreate,
    response: { status: 201, schema: WikiPage, description: 'Created (201) or the page of the same externalRef (200)' },
    handler: async ({ actor, params, body, call }) => upserted(await call({ actor, parentId: params.id, body: toStruct(body) })),
  }),
  defineRoute({
    method: 'GET',
    path: '/wiki-pages/:id',
    summary: 'Get a wiki page with its full content',
    tag: 'wiki',
    service: WikiService,
    rpc: 'getWikiPage',
    tool: { name: 'get_wiki_page', title: 'Get a wiki page', description: 'One wiki page with its full content.' },
    permission: 'read:wiki',
    response: { status: 200, schema: WikiPage },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/wiki-pages/:id',
    summary: 'Update a wiki page',
    tag: 'wiki',
    service: WikiService,
    rpc: 'updateWikiPage',
    tool: {
      name: 'update_wiki_page',
      title: 'Update a wiki page',
      description: 'Changes the given fields of a wiki page.',
      destructive: true,
    },
    permission: 'write:wiki',
    body: WikiPageUpdate,
    response: { status: 200, schema: WikiPage },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/wiki-pages/:id',
    summary: 'Delete a wiki page',
    tag: 'wiki',
    service: WikiService,
    rpc: 'deleteWikiPage',
    tool: false,
    permission: 'delete:wiki',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, call }) => {
      await call({ actor, id: params.id });
      return noContent();
    },
  }),
];
