import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid, propertiesOf } from './common.ts';

/** Every field of an agreement answer, in order; the signed document is never returned. */
export const AGREEMENT_FIELDS = ['id', 'projectId', 'title', 'status', 'signedAt', 'createdAt'] as const;

/** The spec's Agreement (plus signedAt). */
export const Agreement = Type.Object(
  propertiesOf(AGREEMENT_FIELDS)({
    id: Uuid,
    projectId: Nullable(Uuid),
    title: Type.String(),
    status: Type.String(),
    signedAt: Nullable(DateTime),
    createdAt: DateTime,
  }),
  { additionalProperties: false },
);
