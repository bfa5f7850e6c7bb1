import { Type, type Static } from '@sinclair/typebox';
import { Body, DateTime, Nullable, NullableString, Uuid, fieldsOf, propertiesOf } from './common.ts';

/** Every field a comment body may set, on create and update. */
export const COMMENT_WRITABLE_FIELDS = ['content', 'isInternal', 'isAiGenerated'] as const;
export type CommentWritableField = (typeof COMMENT_WRITABLE_FIELDS)[number];
/** The column of each body field: the request's `content` is stored (and answered) as `body`. */
export const COMMENT_COLUMN_OF = {
  content: 'body',
  isInternal: 'isInternal',
  isAiGenerated: 'isAiGenerated',
} as const satisfies Record<CommentWritableField, string>;
/** The columns a comment body sets, in the order of `changedFields`. */
export const COMMENT_WRITABLE_COLUMNS = COMMENT_WRITABLE_FIELDS.map((f) => COMMENT_COLUMN_OF[f]);
const commentFields = propertiesOf(COMMENT_WRITABLE_FIELDS)({
  content: Type.String({ minLength: 1 }),
  isInternal: NullableString,
  isAiGenerated: NullableString,
});

/** POST /entries/:id/comments body. */
export const CommentCreate = Body(commentFields, { required: ['content'], description: 'Comment create body' });
export type CommentCreateBody = Static<typeof CommentCreate>;
/** PATCH /comments/:id body. */
export const CommentUpdate = Body(commentFields, { description: 'Comment update body: every field optional' });
export type CommentUpdateBody = Static<typeof CommentUpdate>;

/** The spec's Comment. */
export const Comment = Type.Object(
  {
    id: Uuid,
    entryId: Uuid,
    body: Type.String(),
    authorId: Nullable(Uuid),
    isInternal: NullableString,
    isAiGenerated: NullableString,
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Comment (the create body `content` is answered as `body`)' },
);
/** Every field of an answered comment, in order: Comment's fields. Never organizationId or projectId. */
export const COMMENT_FIELDS = fieldsOf(Comment);
