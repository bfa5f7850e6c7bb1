import { Type, type Static } from '@sinclair/typebox';
import { Body, DateOrDateTime, DateTime, Money, Nullable, NullableString, StringEnum, Uuid, propertiesOf } from './common.ts';

/** Values of a release's `status`, `type`, `targetAudience` and `riskLevel` (spec). */
export const RELEASE_STATUSES = ['planning', 'active', 'in_progress', 'testing', 'completed', 'released', 'archived'] as const;
export const RELEASE_TYPES = ['major', 'minor', 'hotfix', 'patch'] as const;
export const TARGET_AUDIENCES = ['internal', 'beta', 'limited', 'general'] as const;
export const RISK_LEVELS = ['low', 'standard', 'high'] as const;

/**
 * Every column a release body may set, on create and update; the order is the order of
 * `changedFields`. The body's `updatedAt` is accepted and ignored (RELEASE_IGNORED_FIELDS):
 * the server keeps updatedAt (see docs/decisions-entries.md).
 */
export const RELEASE_WRITABLE_FIELDS = [
  'name',
  'description',
  'version',
  'status',
  'type',
  'startDate',
  'endDate',
  'releasedAt',
  'targetAudience',
  'riskLevel',
  'rolloutPercentage',
  'releaseNotes',
  'retrospectiveNotes',
  'dependsOnReleaseId',
  'lowCost',
  'mediumCost',
  'highCost',
  'committedCost',
  'costUpdatedAt',
  'costSource',
  'cascadeAdvance',
] as const;
export type ReleaseWritableField = (typeof RELEASE_WRITABLE_FIELDS)[number];
/** Fields a release body may carry that the server ignores. */
export const RELEASE_IGNORED_FIELDS = ['updatedAt'] as const;
/** Filters of a release list, each an exact match on its column. */
export const RELEASE_FILTERS = ['status', 'type'] as const;
/**
 * Every field of an answered release, in the table's column order (the order of the answer's JSON):
 * the spec's Release, every writable field and creatorId. Never organizationId or the once-only
 * `releasedEventSent` flag.
 */
export const RELEASE_FIELDS = [
  'id',
  'projectId',
  'name',
  'description',
  'version',
  'status',
  'type',
  'startDate',
  'endDate',
  'releasedAt',
  'targetAudience',
  'riskLevel',
  'rolloutPercentage',
  'releaseNotes',
  'retrospectiveNotes',
  'dependsOnReleaseId',
  'lowCost',
  'mediumCost',
  'highCost',
  'committedCost',
  'costUpdatedAt',
  'costSource',
  'cascadeAdvance',
  'creatorId',
  'createdAt',
  'updatedAt',
] as const;

/** A percentage 0..100 as a decimal string. */
const Percentage = Type.String({ pattern: '^(100(\\.0+)?|\\d{1,2}(\\.\\d+)?)$', description: 'decimal string from 0 to 100' });

const releaseFields = propertiesOf(
  RELEASE_WRITABLE_FIELDS,
  RELEASE_IGNORED_FIELDS,
)({
  name: Type.String({ minLength: 1 }),
  startDate: DateOrDateTime,
  endDate: DateOrDateTime,
  description: NullableString,
  version: NullableString,
  status: StringEnum(RELEASE_STATUSES),
  type: StringEnum(RELEASE_TYPES),
  targetAudience: Nullable(StringEnum(TARGET_AUDIENCES)),
  riskLevel: Nullable(StringEnum(RISK_LEVELS)),
  rolloutPercentage: Nullable(Percentage),
  releaseNotes: NullableString,
  retrospectiveNotes: NullableString,
  dependsOnReleaseId: NullableString,
  costUpdatedAt: NullableString,
  costSource: NullableString,
  lowCost: Nullable(Money),
  mediumCost: Nullable(Money),
  highCost: Nullable(Money),
  committedCost: Nullable(Money),
  releasedAt: Nullable(DateTime),
  cascadeAdvance: Type.Boolean(),
  // Accepted as the spec lists it; the server keeps updatedAt itself.
  updatedAt: Type.String({ description: 'accepted and ignored; the server sets updatedAt' }),
});

/** POST /projects/:id/releases body. */
export const ReleaseCreate = Body(releaseFields, {
  required: ['name', 'startDate', 'endDate'],
  description: 'Release create body (endDate not before startDate)',
});
export type ReleaseCreateBody = Static<typeof ReleaseCreate>;

/** PATCH /releases/:id body. */
export const ReleaseUpdate = Body(releaseFields, {
  description: 'Release update body: every field optional; only supplied fields change',
});
export type ReleaseUpdateBody = Static<typeof ReleaseUpdate>;

/** The spec's Release. */
export const Release = Type.Object(
  {
    id: Uuid,
    projectId: Uuid,
    name: Type.String(),
    description: NullableString,
    version: NullableString,
    status: StringEnum(RELEASE_STATUSES),
    type: StringEnum(RELEASE_TYPES),
    startDate: DateTime,
    endDate: DateTime,
    releasedAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Release, with every optional field of the create body' },
);

/** Query schemas of the release filters. */
export const ReleaseFilters = propertiesOf(RELEASE_FILTERS)({
  status: StringEnum(RELEASE_STATUSES),
  type: StringEnum(RELEASE_TYPES),
});
