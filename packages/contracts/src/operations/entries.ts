import { ListOf, ListQuery } from '../resources/common.ts';
import { Entry, EntryCreate, EntryFilters, EntryUpdate } from '../resources/entries.ts';
import type { Operation } from './operation.ts';

/** Entries of a project. */
export const entryOperations: Operation[] = [
  {
    method: 'GET',
    path: '/projects/:id/entries',
    summary: 'List entries of a project',
    tag: 'entries',
    operation: 'cluster.core.v1.EntryService/ListEntries',
    tool: {
      name: 'list_entries',
      title: 'List entries',
      description: 'Entries (bugs, features, tasks) of a project, with filters.',
    },
    permission: 'read:entry',
    query: ListQuery(EntryFilters),
    response: { status: 200, schema: ListOf(Entry) },
  },
  {
    method: 'POST',
    path: '/projects/:id/entries',
    summary: 'Create an entry',
    tag: 'entries',
    operation: 'cluster.core.v1.EntryService/CreateEntry',
    tool: { name: 'create_entry', title: 'Create an entry', description: 'Creates an entry in a project.' },
    permission: 'write:entry',
    body: EntryCreate,
    response: { status: 201, schema: Entry },
  },
  {
    method: 'GET',
    path: '/entries/:id',
    summary: 'Get an entry',
    tag: 'entries',
    operation: 'cluster.core.v1.EntryService/GetEntry',
    tool: { name: 'get_entry', title: 'Get an entry', description: 'One entry by id.' },
    permission: 'read:entry',
    response: { status: 200, schema: Entry },
  },
  {
    method: 'PATCH',
    path: '/entries/:id',
    summary: 'Update an entry',
    tag: 'entries',
    operation: 'cluster.core.v1.EntryService/UpdateEntry',
    tool: {
      name: 'update_entry',
      title: 'Update an entry',
      description: 'Changes the given fields of an entry.',
      destructive: true,
    },
    permission: 'write:entry',
    body: EntryUpdate,
    response: { status: 200, schema: Entry },
  },
  {
    method: 'DELETE',
    path: '/entries/:id',
    summary: 'Delete an entry',
    tag: 'entries',
    operation: 'cluster.core.v1.EntryService/DeleteEntry',
    tool: false,
    permission: 'delete:entry',
    response: { status: 204, description: 'Deleted' },
  },
];
