import { defineRoutes } from '../http/route.ts';
import { ListOf, ListQuery } from '../schemas/common.ts';
import {
  Attachment, AttachmentCreate, Comment, CommentCreate, CommentUpdate, Entry, EntryCreate, EntryFilters, EntryUpdate,
} from '../schemas/entries.ts';
import { created, list, listArgs, noContent, ok } from './helpers.ts';

/** Entries of a project, their comments and their attachment records. */
export const entryRoutes = defineRoutes([
  {
    method: 'GET', path: '/projects/:id/entries', summary: 'List entries of a project', tag: 'entries', permission: 'read:entry',
    query: ListQuery(EntryFilters), response: { status: 200, schema: ListOf(Entry) },
    handler: async (input) => list(await input.clients.entries.listEntries(listArgs(input, input.params.id))),
  },
  {
    method: 'POST', path: '/projects/:id/entries', summary: 'Create an entry', tag: 'entries', permission: 'write:entry',
    body: EntryCreate, response: { status: 201, schema: Entry },
    handler: async ({ actor, params, body, clients }) =>
      created((await clients.entries.createEntry({ actor, parentId: params.id, body: body as never })).resource),
  },
  {
    method: 'GET', path: '/entries/:id', summary: 'Get an entry', tag: 'entries', permission: 'read:entry',
    response: { status: 200, schema: Entry },
    handler: async ({ actor, params, clients }) => ok((await clients.entries.getEntry({ actor, id: params.id })).resource),
  },
  {
    method: 'PATCH', path: '/entries/:id', summary: 'Update an entry', tag: 'entries', permission: 'write:entry',
    body: EntryUpdate, response: { status: 200, schema: Entry },
    handler: async ({ actor, params, body, clients }) =>
      ok((await clients.entries.updateEntry({ actor, id: params.id, body: body as never })).resource),
  },
  {
    method: 'DELETE', path: '/entries/:id', summary: 'Delete an entry', tag: 'entries', permission: 'delete:entry',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.entries.deleteEntry({ actor, id: params.id });
      return noContent();
    },
  },
  {
    method: 'GET', path: '/entries/:id/comments', summary: 'List comments of an entry', tag: 'comments', permission: 'read:comment',
    query: ListQuery(), response: { status: 200, schema: ListOf(Comment) },
    handler: async (input) => list(await input.clients.comments.listComments(listArgs(input, input.params.id))),
  },
  {
    method: 'POST', path: '/entries/:id/comments', summary: 'Comment on an entry', tag: 'comments', permission: 'write:comment',
    body: CommentCreate, response: { status: 201, schema: Comment },
    handler: async ({ actor, params, body, clients }) =>
      created((await clients.comments.createComment({ actor, parentId: params.id, body: body as never })).resource),
  },
  {
    method: 'GET', path: '/comments/:id', summary: 'Get a comment', tag: 'comments', permission: 'read:comment',
    response: { status: 200, schema: Comment },
    handler: async ({ actor, params, clients }) => ok((await clients.comments.getComment({ actor, id: params.id })).resource),
  },
  {
    method: 'PATCH', path: '/comments/:id', summary: 'Update a comment', tag: 'comments', permission: 'write:comment',
    body: CommentUpdate, response: { status: 200, schema: Comment },
    handler: async ({ actor, params, body, clients }) =>
      ok((await clients.comments.updateComment({ actor, id: params.id, body: body as never })).resource),
  },
  {
    method: 'DELETE', path: '/comments/:id', summary: 'Delete a comment', tag: 'comments', permission: 'delete:comment',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.comments.deleteComment({ actor, id: params.id });
      return noContent();
    },
  },
  {
    method: 'GET', path: '/entries/:id/attachments', summary: 'List attachments of an entry', tag: 'attachments',
    permission: 'read:attachment', query: ListQuery(), response: { status: 200, schema: ListOf(Attachment) },
    handler: async (input) => list(await input.clients.attachments.listAttachments(listArgs(input, input.params.id))),
  },
  {
    method: 'POST', path: '/entries/:id/attachments', summary: 'Register an attachment', tag: 'attachments',
    permission: 'write:attachment', body: AttachmentCreate, response: { status: 201, schema: Attachment },
    handler: async ({ actor, params, body, clients }) =>
      created((await clients.attachments.registerAttachment({ actor, parentId: params.id, body: body as never })).resource),
  },
  {
    method: 'GET', path: '/attachments/:id', summary: 'Get an attachment', tag: 'attachments', permission: 'read:attachment',
    response: { status: 200, schema: Attachment },
    handler: async ({ actor, params, clients }) => ok((await clients.attachments.getAttachment({ actor, id: params.id })).resource),
  },
  {
    method: 'DELETE', path: '/attachments/:id', summary: 'Delete an attachment', tag: 'attachments',
    permission: 'delete:attachment', response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.attachments.deleteAttachment({ actor, id: params.id });
      return noContent();
    },
  },
]);
