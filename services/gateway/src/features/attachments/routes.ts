import { AttachmentService } from '@cluster/proto';
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
    service: AttachmentService,
    rpc: 'listAttachments',
    tool: false,
    permission: 'read:attachment',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Attachment) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/entries/:id/attachments',
    summary: 'Register an attachment',
    tag: 'attachments',
    service: AttachmentService,
    rpc: 'registerAttachment',
    tool: false,
    permission: 'write:attachment',
    body: AttachmentCreate,
    response: { status: 201, schema: Attachment },
    handler: async ({ actor, params, body, call }) =>
      created((await call({ actor, parentId: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/attachments/:id',
    summary: 'Get an attachment',
    tag: 'attachments',
    service: AttachmentService,
    rpc: 'getAttachment',
    tool: false,
    permission: 'read:attachment',
    response: { status: 200, schema: Attachment },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/attachments/:id',
    summary: 'Delete an attachment',
    tag: 'attachments',
    service: AttachmentService,
    rpc: 'deleteAttachment',
    tool: false,
    permission: 'delete:attachment',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, call }) => {
      await call({ actor, id: params.id });
      return noContent();
    },
  }),
];
