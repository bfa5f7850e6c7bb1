import { Type, Body, DateTime, NullableString, Uuid } from './common.ts';
import { ExternalRef, NonEmptyString } from './external-ref.ts';

/** The spec's WikiPage, with its full Markdown content. */
export const WikiPage = Type.Object(
  { id: Uuid, projectId: Uuid, title: Type.String(), content: NullableString, createdAt: DateTime, updatedAt: DateTime },
  { additionalProperties: false },
);

/** POST /projects/:id/wiki-pages body. */
export const WikiPageCreate = Body(
  { title: NonEmptyString, content: NullableString, externalRef: ExternalRef },
  { required: ['title'], description: 'WikiPage create; with externalRef an idempotent upsert (200 with the existing page)' },
);

/** PATCH /wiki-pages/:id body. */
export const WikiPageUpdate = Body(
  { title: NonEmptyString, content: NullableString },
  { description: 'WikiPage update: only supplied fields change' },
);
