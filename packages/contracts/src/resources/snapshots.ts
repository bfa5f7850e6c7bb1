import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, NullableString, StringEnum, Uuid, propertiesOf } from './common.ts';

/** Every field of a snapshot answer, in order. */
export const SNAPSHOT_FIELDS = [
  'id',
  'scopeType',
  'scopeId',
  'reportType',
  'status',
  'narrativeSource',
  'summary',
  'createdAt',
] as const;
/** Who wrote a snapshot's summary. */
export const NARRATIVE_SOURCES = ['ai', 'template'] as const;

/** The spec's Snapshot as listed: with the generated summary text. */
export const Snapshot = Type.Object(
  propertiesOf(SNAPSHOT_FIELDS)({
    id: Uuid,
    scopeType: Type.String(),
    scopeId: Uuid,
    reportType: Type.String(),
    status: Type.String(),
    narrativeSource: Nullable(StringEnum(NARRATIVE_SOURCES)),
    summary: NullableString,
    createdAt: DateTime,
  }),
  { additionalProperties: false },
);
