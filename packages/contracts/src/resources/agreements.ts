import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid, fieldsOf } from './common.ts';

/** The spec's Agreement (plus signedAt). */
export const Agreement = Type.Object(
  {
    id: Uuid,
    projectId: Nullable(Uuid),
    title: Type.String(),
    status: Type.String(),
    signedAt: Nullable(DateTime),
    createdAt: DateTime,
  },
  { additionalProperties: false },
);

/** Every field of an agreement answer, in order (Agreement's fields); the signed document is never returned. */
export const AGREEMENT_FIELDS = fieldsOf(Agreement);
