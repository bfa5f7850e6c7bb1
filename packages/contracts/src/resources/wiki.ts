import { Type, type Static } from '@sinclair/typebox';
import { Body, DateTime, NullableString, Uuid, propertiesOf } from './common.ts';
import { ExternalRef, NonEmptyString } from './external-ref.ts';

/** Every field of a wiki page answer, in order. */
export const WIKI_PAGE_FIELDS = ['id', 'projectId', 'title', 'content', 'createdAt', 'updatedAt'] as const;
/** The columns a wiki page body may set, in the order of `changedFields`. */
export const WIKI_PAGE_WRITABLE_FIELDS = ['title', 'content'] as const;

/** The spec's WikiPage, with its full Markdown content. */
export const WikiPage = Type.Object(
  propertiesOf(WIKI_PAGE_FIELDS)({
    id: Uuid,
    projectId: Uuid,
    title: Type.String(),
    content: NullableString,
    createdAt: DateTime,
    updatedAt: DateTime,
  }),
  { additionalProperties: false },
);

const pageFields = propertiesOf(WIKI_PAGE_WRITABLE_FIELDS)({ title: NonEmptyString, content: NullableString });

/** POST /projects/:id/wiki-pages body. */
export const WikiPageCreate = Body(
  { ...pageFields, externalRef: ExternalRef },
  { required: ['title'], description: 'WikiPage create; with externalRef an idempotent upsert (200 with the existing page)' },
);
export type WikiPageCreateBody = Static<typeof WikiPageCreate>;

/** PATCH /wiki-pages/:id body. */
export const WikiPageUpdate = Body(pageFields, { description: 'WikiPage update: only supplied fields change' });
export type WikiPageUpdateBody = Static<typeof WikiPageUpdate>;
