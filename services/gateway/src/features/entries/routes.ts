import { Entry, EntryCreate, EntryFilters, EntryUpdate, ListOf, ListQuery } from '@cluster/contracts';
import { created, list, listArgs, noContent, ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** Entries of a project. */
export const entryRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/entries',
    summary: 'List entries of a project',
    tag: 'entries',
    permission: 'read:entry',
    query: ListQuery(EntryFilters),
    response: { status: 200, schema: ListOf(Entry) },
    handler: async (input) => list(await input.clients.entries.listEntries(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/entries',
    summary: 'Create an entry',
    tag: 'entries',
    permission: 'write:entry',
    body: EntryCreate,
    response: { status: 201, schema: Entry },
    handler: async ({ actor, params, body, clients }) =>
      created((await clients.entries.createEntry({ actor, parentId: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/entries/:id',
    summary: 'Get an entry',
    tag: 'entries',
    permission: 'read:entry',
    response: { status: 200, schema: Entry },
    handler: async ({ actor, params, clients }) => ok((await clients.entries.getEntry({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/entries/:id',
    summary: 'Update an entry',
    tag: 'entries',
    permission: 'write:entry',
    body: EntryUpdate,
    response: { status: 200, schema: Entry },
    handler: async ({ actor, params, body, clients }) =>
      ok((await clients.entries.updateEntry({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/entries/:id',
    summary: 'Delete an entry',
    tag: 'entries',
    permission: 'delete:entry',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.entries.deleteEntry({ actor, id: params.id });
      return noContent();
    },
  }),
];
