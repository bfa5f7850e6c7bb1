import { Type, type Static } from '@sinclair/typebox';
import {
  Body,
  DateOrDateTime,
  DateTime,
  Money,
  Nullable,
  NullableString,
  StringEnum,
  Uuid,
  fieldsOf,
  propertiesOf,
} from './common.ts';

/** Values of a release's `status`, `type`, `targetAudience` and `riskLevel` (spec). */
export const RELEASE_STATUSES = ['planning', 'active', 'in_progress', 'testing', 'completed', 'released', 'archived'] as const;
export const RELEASE_TYPES = ['major', 'minor', 'hotfix', 'patch'] as const;
export const TARGET_AUDIENCES = ['internal', 'beta', 'limited', 'general'] as const;
export const RISK_LEVELS = ['low', 'standard', 'high'] as const;

/** Fields a release body may carry that the server ignores. */
export const RELEASE_IGNORED_FIELDS = ['updatedAt'] as const;
/** Filters of a release list, each an exact match on its column. */
export const RELEASE_FILTERS = ['status', 'type'] as const;

/** A percentage 0..100 as a decimal string. */
const Percentage = Type.String({ pattern: '^(100(\\.0+)?|\\d{1,2}(\\.\\d+)?)$', description: 'decimal string from 0 to 100' });

/**
 * Every field a release body may carry, on create and update; the order is the order of
 * `changedFields`. The body's `updatedAt` is accepted and ignored (RELEASE_IGNORED_FIELDS):
 * the server keeps updatedAt (see docs/decisions-entries.md).
 */
const releaseFields = {
  name: Type.String({ minLength: 1 }),
  description: NullableString,
  version: NullableString,
  status: StringEnum(RELEASE_STATUSES),
  type: StringEnum(RELEASE_TYPES),
  startDate: DateOrDateTime,
  endDate: DateOrDateTime,
  releasedAt: Nullable(DateTime),
  targetAudience: Nullable(StringEnum(TARGET_AUDIENCES)),
  riskLevel: Nullable(StringEnum(RISK_LEVELS)),
  rolloutPercentage: Nullable(Percentage),
  releaseNotes: NullableString,
  retrospectiveNotes: NullableString,
  dependsOnReleaseId: NullableString,
  lowCost: Nullable(Money),
  mediumCost: Nullable(Money),
  highCost: Nullable(Money),
  committedCost: Nullable(Money),
  costUpdatedAt: NullableString,
  costSource: NullableString,
  cascadeAdvance: Type.Boolean(),
  // Accepted as the spec lists it; the server keeps updatedAt itself.
  updatedAt: Type.String({ description: 'accepted and ignored; the server sets updatedAt' }),
};

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

/** Every column a release body sets, in the order of `changedFields`: the body's fields but the ignored ones. */
export const RELEASE_WRITABLE_FIELDS = fieldsOf(ReleaseUpdate, { except: RELEASE_IGNORED_FIELDS });
export type ReleaseWritableField = (typeof RELEASE_WRITABLE_FIELDS)[number];

/**
 * The spec's Release, with every field of the body and creatorId, in the table's column order (the
 * order of the answer's JSON). Never organizationId or the once-only `releasedEventSent` flag.
 */
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
    targetAudience: releaseFields.targetAudience,
    riskLevel: releaseFields.riskLevel,
    rolloutPercentage: releaseFields.rolloutPercentage,
    releaseNotes: NullableString,
    retrospectiveNotes: NullableString,
    dependsOnReleaseId: NullableString,
    lowCost: Nullable(Money),
    mediumCost: Nullable(Money),
    highCost: Nullable(Money),
    committedCost: Nullable(Money),
    costUpdatedAt: NullableString,
    costSource: NullableString,
    cascadeAdvance: Type.Boolean(),
    creatorId: Nullable(Uuid),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Release, with every field of the create body' },
);
/** Every field of an answered release, in order: Release's fields. */
export const RELEASE_FIELDS = fieldsOf(Release);

/** Query schemas of the release filters. */
export const ReleaseFilters = propertiesOf(RELEASE_FILTERS)({
  status: StringEnum(RELEASE_STATUSES),
  type: StringEnum(RELEASE_TYPES),
});
