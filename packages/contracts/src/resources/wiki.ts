import { Type, type Static } from '@sinclair/typebox';
import { Body, DateTime, NullableString, Uuid, fieldsOf } from './common.ts';
import { ExternalRef, NonEmptyString } from './external-ref.ts';

/** The spec's WikiPage, with its full Markdown content. */
export const WikiPage = Type.Object(
  {
    id: Uuid,
    projectId: Uuid,
    title: Type.String(),
    content: NullableString,
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: false },
);

const pageFields = { title: NonEmptyString, content: NullableString };

/** POST /projects/:id/wiki-pages body. */
export const WikiPageCreate = Body(
  { ...pageFields, externalRef: ExternalRef },
  { required: ['title'], description: 'WikiPage create; with externalRef an idempotent upsert (200 with the existing page)' },
);
export type WikiPageCreateBody = Static<typeof WikiPageCreate>;

/** PATCH /wiki-pages/:id body. */
export const WikiPageUpdate = Body(pageFields, { description: 'WikiPage update: only supplied fields change' });
export type WikiPageUpdateBody = Static<typeof WikiPageUpdate>;

/** Every field of a wiki page answer, in order: WikiPage's fields. */
export const WIKI_PAGE_FIELDS = fieldsOf(WikiPage);
/** The columns a wiki page body may set, in the order of `changedFields`: WikiPageUpdate's fields. */
export const WIKI_PAGE_WRITABLE_FIELDS = fieldsOf(WikiPageUpdate);
