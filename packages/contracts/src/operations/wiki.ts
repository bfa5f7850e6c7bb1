import { ListOf, ListQuery } from '../resources/common.ts';
import { WikiPage, WikiPageCreate, WikiPageUpdate } from '../resources/wiki.ts';
import type { Operation } from './operation.ts';

/** Wiki pages of a project. */
export const wikiOperations: Operation[] = [
  {
    method: 'GET',
    path: '/projects/:id/wiki-pages',
    summary: 'List wiki pages of a project',
    tag: 'wiki',
    operation: 'cluster.core.v1.WikiService/ListWikiPages',
    tool: { name: 'list_wiki_pages', title: 'List wiki pages', description: 'Wiki pages of a project.' },
    permission: 'read:wiki',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(WikiPage) },
  },
  {
    method: 'POST',
    path: '/projects/:id/wiki-pages',
    summary: 'Create a wiki page (idempotent with externalRef)',
    tag: 'wiki',
    operation: 'cluster.core.v1.WikiService/CreateWikiPage',
    tool: { name: 'create_wiki_page', title: 'Create a wiki page', description: 'Creates a wiki page in a project.' },
    permission: 'write:wiki',
    body: WikiPageCreate,
    response: {
      status: 201,
      schema: WikiPage,
      description: 'Created (201) or the page of the same externalRef (200)',
      upsert: true,
    },
  },
  {
    method: 'GET',
    path: '/wiki-pages/:id',
    summary: 'Get a wiki page with its full content',
    tag: 'wiki',
    operation: 'cluster.core.v1.WikiService/GetWikiPage',
    tool: { name: 'get_wiki_page', title: 'Get a wiki page', description: 'One wiki page with its full content.' },
    permission: 'read:wiki',
    response: { status: 200, schema: WikiPage },
  },
  {
    method: 'PATCH',
    path: '/wiki-pages/:id',
    summary: 'Update a wiki page',
    tag: 'wiki',
    operation: 'cluster.core.v1.WikiService/UpdateWikiPage',
    tool: {
      name: 'update_wiki_page',
      title: 'Update a wiki page',
      description: 'Changes the given fields of a wiki page.',
      destructive: true,
    },
    permission: 'write:wiki',
    body: WikiPageUpdate,
    response: { status: 200, schema: WikiPage },
  },
  {
    method: 'DELETE',
    path: '/wiki-pages/:id',
    summary: 'Delete a wiki page',
    tag: 'wiki',
    operation: 'cluster.core.v1.WikiService/DeleteWikiPage',
    tool: false,
    permission: 'delete:wiki',
    response: { status: 204, description: 'Deleted' },
  },
];
