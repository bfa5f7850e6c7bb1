import { Type, type Static } from '@sinclair/typebox';
import { AnyJson, Body, DateTime, Money, Nullable, NullableString, StringEnum, Uuid, fieldsOf, propertiesOf } from './common.ts';

/** Values of an entry's `type`, `status`, `priority`, approval states and deployment stage (spec). */
export const ENTRY_TYPES = [
  'feature_request',
  'bug_report',
  'feedback',
  'validation',
  'documentation',
  'platform_infrastructure',
  'ci_cd',
  'security',
] as const;
export const ENTRY_STATUSES = ['open', 'assigned', 'in_progress', 'deployed', 'solved'] as const;
export const ENTRY_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export const COST_APPROVAL_STATUSES = [
  'draft',
  'pending_admin',
  'pending_manager',
  'pending_client',
  'approved',
  'rejected',
] as const;
export const DEPLOYMENT_STAGES = ['testing', 'staging', 'production'] as const;
export type DeploymentStage = (typeof DEPLOYMENT_STAGES)[number];

/** Entry columns stored as JSON (jsonb). */
export const ENTRY_JSON_FIELDS = ['typeMetadata'] as const;
/** Read-only fields a body may carry (the spec says they are accepted and ignored). */
export const ENTRY_IGNORED_FIELDS = ['deploymentStage'] as const;
/** Filters of an entry list, each an exact match on its column. */
export const ENTRY_FILTERS = ['status', 'type', 'priority', 'assignedToId', 'releaseId'] as const;

/**
 * Every field an entry body may carry, on create and update: the spec's body. The order is the
 * order of `changedFields` in events and audit records. `projectId` is absent on purpose.
 */
const entryFields = {
  type: StringEnum(ENTRY_TYPES),
  title: Type.String({ minLength: 1 }),
  description: Type.String(),
  status: StringEnum(ENTRY_STATUSES),
  priority: StringEnum(ENTRY_PRIORITIES),
  assignedToId: Nullable(Uuid),
  releaseId: Nullable(Uuid),
  typeMetadata: AnyJson,
  webLink: NullableString,
  stepsToReproduce: NullableString,
  expectedBehavior: NullableString,
  actualBehavior: NullableString,
  environment: NullableString,
  useCase: NullableString,
  proposedSolution: NullableString,
  lowCost: Nullable(Money),
  mediumCost: Nullable(Money),
  highCost: Nullable(Money),
  committedCost: Nullable(Money),
  committedPosition: NullableString,
  costSource: NullableString,
  costOverrideReason: NullableString,
  statusChangedAt: Nullable(DateTime),
  approvalStatus: Nullable(StringEnum(APPROVAL_STATUSES)),
  costApprovalStatus: Nullable(StringEnum(COST_APPROVAL_STATUSES)),
  // Read-only (set by deployment webhooks): accepted in bodies and ignored, as the spec says.
  deploymentStage: Type.Unsafe<unknown>({ readOnly: true, description: 'read-only; ignored in bodies' }),
};

/** POST /projects/:id/entries body. */
export const EntryCreate = Body(entryFields, { required: ['type', 'title', 'description'], description: 'Entry create body' });
export type EntryCreateBody = Static<typeof EntryCreate>;

/** PATCH /entries/:id body. */
export const EntryUpdate = Body(entryFields, {
  description: 'Entry update body: every field optional; only supplied fields change; projectId cannot change',
});
export type EntryUpdateBody = Static<typeof EntryUpdate>;

/** Every column an entry body sets, in the order of `changedFields`: the body's fields but the ignored ones. */
export const ENTRY_WRITABLE_FIELDS = fieldsOf(EntryUpdate, { except: ENTRY_IGNORED_FIELDS });
export type EntryWritableField = (typeof ENTRY_WRITABLE_FIELDS)[number];

/** The spec's Entry, with every field of the body, in the table's column order (the order of the answer's JSON). */
export const Entry = Type.Object(
  {
    id: Uuid,
    projectId: Uuid,
    entryNumber: Nullable(Type.Integer()),
    type: StringEnum(ENTRY_TYPES),
    title: Type.String(),
    description: Type.String(),
    status: StringEnum(ENTRY_STATUSES),
    priority: StringEnum(ENTRY_PRIORITIES),
    assignedToId: Nullable(Uuid),
    releaseId: Nullable(Uuid),
    creatorId: Nullable(Uuid),
    typeMetadata: AnyJson,
    deploymentStage: Nullable(StringEnum(DEPLOYMENT_STAGES)),
    webLink: NullableString,
    stepsToReproduce: NullableString,
    expectedBehavior: NullableString,
    actualBehavior: NullableString,
    environment: NullableString,
    useCase: NullableString,
    proposedSolution: NullableString,
    lowCost: Nullable(Money),
    mediumCost: Nullable(Money),
    highCost: Nullable(Money),
    committedCost: Nullable(Money),
    committedPosition: NullableString,
    costSource: NullableString,
    costOverrideReason: NullableString,
    statusChangedAt: Nullable(DateTime),
    approvalStatus: Nullable(StringEnum(APPROVAL_STATUSES)),
    costApprovalStatus: Nullable(StringEnum(COST_APPROVAL_STATUSES)),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Entry, with every field of the create body' },
);
/** Every field of an answered entry, in order: Entry's fields. Never organizationId. */
export const ENTRY_FIELDS = fieldsOf(Entry);

/** Query schemas of the entry filters (ListQuery adds page and pageSize). */
export const EntryFilters = propertiesOf(ENTRY_FILTERS)({
  status: StringEnum(ENTRY_STATUSES),
  type: StringEnum(ENTRY_TYPES),
  priority: StringEnum(ENTRY_PRIORITIES),
  assignedToId: Uuid,
  releaseId: Uuid,
});
