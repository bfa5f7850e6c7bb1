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
    permission: 'read:comment',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Comment) },
    handler: async (input) => list(await input.clients.comments.listComments(listArgs(input, input.params.id))),
  }),
  defineRoute({
    method: 'POST',
    path: '/entries/:id/comments',
    summary: 'Comment on an entry',
    tag: 'comments',
    permission: 'write:comment',
    body: CommentCreate,
    response: { status: 201, schema: Comment },
    handler: async ({ actor, params, body, clients }) =>
      created((await clients.comments.createComment({ actor, parentId: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'GET',
    path: '/comments/:id',
    summary: 'Get a comment',
    tag: 'comments',
    permission: 'read:comment',
    response: { status: 200, schema: Comment },
    handler: async ({ actor, params, clients }) => ok((await clients.comments.getComment({ actor, id: params.id })).resource),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/comments/:id',
    summary: 'Update a comment',
    tag: 'comments',
    permission: 'write:comment',
    body: CommentUpdate,
    response: { status: 200, schema: Comment },
    handler: async ({ actor, params, body, clients }) =>
      ok((await clients.comments.updateComment({ actor, id: params.id, body: toStruct(body) })).resource),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/comments/:id',
    summary: 'Delete a comment',
    tag: 'comments',
    permission: 'delete:comment',
    response: { status: 204, description: 'Deleted' },
    handler: async ({ actor, params, clients }) => {
      await clients.comments.deleteComment({ actor, id: params.id });
      return noContent();
    },
  }),
];
