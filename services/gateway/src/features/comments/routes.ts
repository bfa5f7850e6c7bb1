import { CommentService } from '@cluster/proto';
import { Comment, CommentCreate, CommentUpdate, ListOf, ListQuery } from '@cluster/contracts';
import { created, list, listArgs, noContent, ok } from '../../http/results.ts';
import { defineRoute, type RouteDef } from '../../http/route.ts';
import { toStruct } from '../../http/struct.ts';

/** Comments of entries. */
export const commentRoutes: RouteDef[] = [
  defineRoute({
    method: 'GET',
    path: '/entries/:id/comments',
    summary: 'List comments of an entry',
    tag: 'comments',
    service: CommentService,
    rpc: 'listComments',
    tool: false,
    permission: 'read:comment',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Comment) },
    handler: async (input) => list(await input.call(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/entries/:id/comments',
    summary: 'Comment on an entry',
    tag: 'comments',
    service: CommentService,
    rpc: 'createComment',
    tool: { name: 'comment_on_entry', title: 'Comment on an entry', description: 'Adds a comment to an entry.' },
    permission: 'write:comment',
    body: CommentCreate,
    response: { status: 201, schema: Comment },
    handler: async ({ actor, params, body, call }) =>
      created((await call({ actor, parentId: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/comments/:id',
    summary: 'Get a comment',
    tag: 'comments',
    service: CommentService,
    rpc: 'getComment',
    tool: false,
    permission: 'read:comment',
    response: { status: 200, schema: Comment },
    handler: async ({ actor, params, call }) => ok((await call({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/comments/:id',
    summary: 'Update a comment',
    tag: 'comments',
    service: CommentService,
    rpc: 'updateComment',
    tool: false,
    permission: 'write:comment',
    body: CommentUpdate,
    response: { status: 200, schema: Comment },
    handler: async ({ actor, params, body, call }) => ok((await call({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/comments/:id',
    summary: 'Delete a comment',
    tag: 'comments',
    service: CommentService,
    rpc: 'deleteComment',
    tool: false,
    permission: 'delete:comment',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, call }) => {
      await call({ actor, id: params.id });
      return noContent();
    },
  }),
];
