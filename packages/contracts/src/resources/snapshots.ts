import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, NullableString, StringEnum, Uuid, fieldsOf } from './common.ts';

/** Who wrote a snapshot's summary. */
export const NARRATIVE_SOURCES = ['ai', 'template'] as const;

/** The spec's Snapshot as listed: with the generated summary text. */
export const Snapshot = Type.Object(
  {
    id: Uuid,
    scopeType: Type.String(),
    scopeId: Uuid,
    reportType: Type.String(),
    status: Type.String(),
    narrativeSource: Nullable(StringEnum(NARRATIVE_SOURCES)),
    summary: NullableString,
    createdAt: DateTime,
  },
  { additionalProperties: false },
);

/** Every field of a snapshot answer, in order: Snapshot's fields. */
export const SNAPSHOT_FIELDS = fieldsOf(Snapshot);
