import { Attachment, AttachmentCreate } from '../resources/attachments.ts';
import { ListOf, ListQuery } from '../resources/common.ts';
import type { Operation } from './operation.ts';

/** Attachment records of entries (the files live in object storage). */
export const attachmentOperations: Operation[] = [
  {
    method: 'GET',
    path: '/entries/:id/attachments',
    summary: 'List attachments of an entry',
    tag: 'attachments',
    operation: 'cluster.core.v1.AttachmentService/ListAttachments',
    tool: false,
    permission: 'read:attachment',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Attachment) },
  },
  {
    method: 'POST',
    path: '/entries/:id/attachments',
    summary: 'Register an attachment',
    tag: 'attachments',
    operation: 'cluster.core.v1.AttachmentService/RegisterAttachment',
    tool: false,
    permission: 'write:attachment',
    body: AttachmentCreate,
    response: { status: 201, schema: Attachment },
  },
  {
    method: 'GET',
    path: '/attachments/:id',
    summary: 'Get an attachment',
    tag: 'attachments',
    operation: 'cluster.core.v1.AttachmentService/GetAttachment',
    tool: false,
    permission: 'read:attachment',
    response: { status: 200, schema: Attachment },
  },
  {
    method: 'DELETE',
    path: '/attachments/:id',
    summary: 'Delete an attachment',
    tag: 'attachments',
    operation: 'cluster.core.v1.AttachmentService/DeleteAttachment',
    tool: false,
    permission: 'delete:attachment',
    response: { status: 204, description: 'Deleted' },
  },
];
