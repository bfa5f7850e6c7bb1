import { Type, StringEnum, Nullable, NullableString, Body, DateTime, Uuid, type TSchema } from './common.ts';
import { Money } from './entries.ts';

export const RELEASE_STATUSES = ['planning', 'active', 'in_progress', 'testing', 'completed', 'released', 'archived'] as const;
export const RELEASE_TYPES = ['major', 'minor', 'hotfix', 'patch'] as const;
export const TARGET_AUDIENCES = ['internal', 'beta', 'limited', 'general'] as const;
export const RISK_LEVELS = ['low', 'standard', 'high'] as const;

/** A percentage 0..100 as a decimal string. */
const Percentage = Type.String({ pattern: '^(100(\\.0+)?|\\d{1,2}(\\.\\d+)?)$', description: 'decimal string from 0 to 100' });

const nullableStrings = ['releaseNotes', 'retrospectiveNotes', 'dependsOnReleaseId', 'costUpdatedAt', 'costSource'] as const;
const moneyFields = ['lowCost', 'mediumCost', 'highCost', 'committedCost'] as const;

const releaseOptional: Record<string, TSchema> = {
  description: NullableString,
  version: NullableString,
  status: StringEnum(RELEASE_STATUSES),
  type: StringEnum(RELEASE_TYPES),
  targetAudience: Nullable(StringEnum(TARGET_AUDIENCES)),
  riskLevel: Nullable(StringEnum(RISK_LEVELS)),
  rolloutPercentage: Nullable(Percentage),
  ...Object.fromEntries(nullableStrings.map((k) => [k, NullableString])),
  ...Object.fromEntries(moneyFields.map((k) => [k, Nullable(Money)])),
  releasedAt: Nullable(DateTime),
  cascadeAdvance: Type.Boolean(),
  // Accepted as the spec lists it; the server keeps updatedAt itself.
  updatedAt: Type.String({ description: 'accepted and ignored; the server sets updatedAt' }),
};

const required = { name: Type.String({ minLength: 1 }), startDate: DateTime, endDate: DateTime };

export const ReleaseCreate = Body(
  { ...required, ...releaseOptional },
  { required: ['name', 'startDate', 'endDate'], description: 'Release create body (endDate not before startDate)' },
);

export const ReleaseUpdate = Body(
  { ...required, ...releaseOptional },
  { description: 'Release update body: every field optional; only supplied fields change' },
);

export const Release = Type.Object(
  {
    id: Uuid, projectId: Uuid, name: Type.String(), description: NullableString, version: NullableString,
    status: StringEnum(RELEASE_STATUSES), type: StringEnum(RELEASE_TYPES), startDate: DateTime, endDate: DateTime,
    releasedAt: Nullable(DateTime), createdAt: DateTime, updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Release, with every optional field of the create body' },
);

export const ReleaseFilters = { status: StringEnum(RELEASE_STATUSES), type: StringEnum(RELEASE_TYPES) };
