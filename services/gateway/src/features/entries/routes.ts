import { EntryService } from '@cluster/proto';
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
    service: EntryService,
    rpc: 'listEntries',
    tool: {
      name: 'list_entries',
      title: 'List entries',
      description: 'Entries (bugs, features, tasks) of a project, with filters.',
    },
    permission: 'read:entry',
    query: ListQuery(EntryFilters),
    response: { status: 200, schema: ListOf(Entry) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/entries',
    summary: 'Create an entry',
    tag: 'entries',
    service: EntryService,
    rpc: 'createEntry',
    tool: { name: 'create_entry', title: 'Create an entry', description: 'Creates an entry in a project.' },
    permission: 'write:entry',
    body: EntryCreate,
    response: { status: 201, schema: Entry },
    handler: async ({ actor, params, body, call }) =>
      created((await call({ actor, parentId: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/entries/:id',
    summary: 'Get an entry',
    tag: 'entries',
    service: EntryService,
    rpc: 'getEntry',
    tool: { name: 'get_entry', title: 'Get an entry', description: 'One entry by id.' },
    permission: 'read:entry',
    response: { status: 200, schema: Entry },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/entries/:id',
    summary: 'Update an entry',
    tag: 'entries',
    service: EntryService,
    rpc: 'updateEntry',
    tool: {
      name: 'update_entry',
      title: 'Update an entry',
      description: 'Changes the given fields of an entry.',
      destructive: true,
    },
    permission: 'write:entry',
    body: EntryUpdate,
    response: { status: 200, schema: Entry },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/entries/:id',
    summary: 'Delete an entry',
    tag: 'entries',
    service: EntryService,
    rpc: 'deleteEntry',
    tool: false,
    permission: 'delete:entry',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, call }) => {
      await call({ actor, id: params.id });
      return noContent();
    },
  }),
];
