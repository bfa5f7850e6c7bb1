import { Attachment, AttachmentCreate, ListOf, ListQuery } from '@cluster/contracts';
import { created, list, listArgs, noContent, ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** Attachment records of entries (the files live in object storage). */
export const attachmentRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/entries/:id/attachments',
    summary: 'List attachments of an entry',
    tag: 'attachments',
    permission: 'read:attachment',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Attachment) },
    handler: async (input) => list(await input.clients.attachments.listAttachments(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/entries/:id/attachments',
    summary: 'Register an attachment',
    tag: 'attachments',
    permission: 'write:attachment',
    body: AttachmentCreate,
    response: { status: 201, schema: Attachment },
    handler: async ({ actor, params, body, clients }) =>
      created((await clients.attachments.registerAttachment({ actor, parentId: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/attachments/:id',
    summary: 'Get an attachment',
    tag: 'attachments',
    permission: 'read:attachment',
    response: { status: 200, schema: Attachment },
    handler: async ({ actor, params, clients }) =>
      ok((await clients.attachments.getAttachment({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/attachments/:id',
    summary: 'Delete an attachment',
    tag: 'attachments',
    permission: 'delete:attachment',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.attachments.deleteAttachment({ actor, id: params.id });
      return noContent();
    },
  }),
];
