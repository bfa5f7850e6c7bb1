import { Comment, CommentCreate, CommentUpdate } from '../resources/comments.ts';
import { ListOf, ListQuery } from '../resources/common.ts';
import type { Operation } from './operation.ts';

/** Comments of entries. */
export const commentOperations: Operation[] = [
  {
    method: 'GET',
    path: '/entries/:id/comments',
    summary: 'List comments of an entry',
    tag: 'comments',
    operation: 'cluster.core.v1.CommentService/ListComments',
    tool: false,
    permission: 'read:comment',
    query: ListQuery(),
    response: { status: 200, schema: ListOf(Comment) },
  },
  {
    method: 'POST',
    path: '/entries/:id/comments',
    summary: 'Comment on an entry',
    tag: 'comments',
    operation: 'cluster.core.v1.CommentService/CreateComment',
    tool: { name: 'comment_on_entry', title: 'Comment on an entry', description: 'Adds a comment to an entry.' },
    permission: 'write:comment',
    body: CommentCreate,
    response: { status: 201, schema: Comment },
  },
  {
    method: 'GET',
    path: '/comments/:id',
    summary: 'Get a comment',
    tag: 'comments',
    operation: 'cluster.core.v1.CommentService/GetComment',
    tool: false,
    permission: 'read:comment',
    response: { status: 200, schema: Comment },
  },
  {
    method: 'PATCH',
    path: '/comments/:id',
    summary: 'Update a comment',
    tag: 'comments',
    operation: 'cluster.core.v1.CommentService/UpdateComment',
    tool: false,
    permission: 'write:comment',
    body: CommentUpdate,
    response: { status: 200, schema: Comment },
  },
  {
    method: 'DELETE',
    path: '/comments/:id',
    summary: 'Delete a comment',
    tag: 'comments',
    operation: 'cluster.core.v1.CommentService/DeleteComment',
    tool: false,
    permission: 'delete:comment',
    response: { status: 204, description: 'Deleted' },
  },
];
