import { Type, type Static } from '@sinclair/typebox';
import {
  Body,
  DateOnly,
  DateTime,
  Nullable,
  NullableString,
  StringEnum,
  Uuid,
  YEAR_PATTERN,
  fieldsOf,
  propertiesOf,
} from './common.ts';
import { EXTERNAL_ID_MAX, EXTERNAL_NAME_MAX } from './external-ref.ts';
import { integrationLinkProperties } from './integration-links.ts';

/** Time entry statuses (spec). */
export const TIME_ENTRY_STATUSES = ['draft', 'submitted', 'approved', 'rejected', 'locked', 'invoiced'] as const;

/** Update body fields that are no column of their own. */
export const TIME_ENTRY_UPDATE_BODY_ONLY = ['hours'] as const;
/** Filters of a time entry list (docs/decisions-api.md; from/to: workDate range, inclusive). */
export const TIME_ENTRY_FILTERS = ['status', 'userId', 'entryId', 'releaseId', 'from', 'to'] as const;

const NonEmpty = Type.String({ minLength: 1 });
const WorkDate = Type.String({ format: 'date', pattern: YEAR_PATTERN, description: 'YYYY-MM-DD' });
/** The sync endpoint also takes an ISO 8601 date-time; the core checks that it is a real date. */
const WorkDateOrDateTime = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?([Zz]|[+-][0-9]{2}:?[0-9]{2})?)?$',
  description: 'YYYY-MM-DD or an ISO 8601 date-time (its date, as written, is the work date)',
});
const Minutes = Type.Integer({ minimum: 1, maximum: 1440 });
const Hours = Type.String({
  pattern: '^[0-9]{1,5}(\\.[0-9]{1,2})?$',
  description: 'decimal hours with at most 2 decimals, for example "2.5"; must agree with minutes when both are given',
});
/** An external system's name and a record's id in it: the unique key of a synchronised entry (EXTERNAL_NAME_MAX). */
const ExternalSystem = Type.String({ minLength: 1, maxLength: EXTERNAL_NAME_MAX });
const ExternalRecordId = Type.String({ minLength: 1, maxLength: EXTERNAL_ID_MAX });
const TimeEntryExternalRef = Type.Object(
  { provider: ExternalSystem, externalType: ExternalSystem, externalId: ExternalRecordId },
  { additionalProperties: false, description: 'makes the create an idempotent upsert and writes an IntegrationLink' },
);

/** TimeEntryCreate: userId and workDate required; one of minutes or hours (both: they must agree). */
export const TimeEntryCreate = Body(
  {
    userId: Uuid,
    workDate: WorkDate,
    minutes: Minutes,
    hours: Hours,
    description: NullableString,
    billable: Type.Boolean(),
    entryId: Nullable(Uuid),
    releaseId: Nullable(Uuid),
    externalRef: TimeEntryExternalRef,
  },
  { required: ['userId', 'workDate'], description: 'TimeEntryCreate' },
);
export type TimeEntryCreateBody = Static<typeof TimeEntryCreate>;

/** TimeEntryUpdate: every field optional; only supplied fields change. */
export const TimeEntryUpdate = Body(
  {
    workDate: WorkDate,
    minutes: Minutes,
    hours: Hours,
    description: NullableString,
    billable: Type.Boolean(),
    releaseId: Nullable(Uuid),
  },
  { description: 'TimeEntryUpdate' },
);
export type TimeEntryUpdateBody = Static<typeof TimeEntryUpdate>;
/**
 * Fields an update may change, as named in `changedFields` and in that order: the update body's but
 * `hours` (TIME_ENTRY_UPDATE_BODY_ONLY), which moves with minutes.
 */
export const TIME_ENTRY_UPDATABLE_FIELDS = fieldsOf(TimeEntryUpdate, { except: TIME_ENTRY_UPDATE_BODY_ONLY });
export type TimeEntryUpdatableField = (typeof TIME_ENTRY_UPDATABLE_FIELDS)[number];

/** Submit takes no body (an empty object is fine; any property is unknown). */
export const SubmitBody = Body({}, { description: 'no body' });
export type TimeEntrySubmitBody = Static<typeof SubmitBody>;
/** Approve: an optional note, kept in the audit trail. */
export const ApproveBody = Body({ note: NullableString }, { description: 'optional note, kept in the audit trail' });
export type TimeEntryApproveBody = Static<typeof ApproveBody>;
/** Reject and unlock: a reason, required and non-empty. */
export const ReasonBody = Body({ reason: NonEmpty }, { required: ['reason'], description: 'reason, required and non-empty' });
export type TimeEntryReasonBody = Static<typeof ReasonBody>;

/** SyncTimeEntry request (spec table, rule for rule). */
export const SyncTimeEntry = Body(
  {
    projectId: Type.String({ minLength: 1, format: 'uuid' }),
    userId: Type.String({ minLength: 1, format: 'uuid' }),
    workDate: WorkDateOrDateTime,
    minutes: Minutes,
    externalSystem: ExternalSystem,
    externalId: ExternalRecordId,
    billable: Type.Boolean({ default: true }),
    description: Nullable(Type.String({ maxLength: 2000 })),
    entryId: Nullable(Uuid),
    externalMetadata: Type.Object({}, { additionalProperties: true, description: 'stored as supplied and returned on reads' }),
  },
  { required: ['projectId', 'userId', 'workDate', 'minutes', 'externalSystem', 'externalId'], description: 'SyncTimeEntry' },
);
export type SyncTimeEntryBody = Static<typeof SyncTimeEntry>;

const common = {
  id: Uuid,
  organizationId: Uuid,
  projectId: Uuid,
  userId: Uuid,
  entryId: Nullable(Uuid),
  workDate: Type.String(),
  hours: Type.String(),
  minutes: Type.Integer(),
  billable: Type.Boolean(),
  source: Type.String(),
  status: StringEnum(TIME_ENTRY_STATUSES),
  invoiced: Type.Boolean(),
  createdAt: DateTime,
  updatedAt: DateTime,
};

/** TimeEntry (answers of lists, create, update and transitions). */
export const TimeEntry = Type.Object(
  { ...common, releaseId: Nullable(Uuid), description: NullableString },
  { description: 'TimeEntry' },
);

/** An IntegrationLink as a time entry lists it (without updatedAt). */
const TimeEntryLink = Type.Object(integrationLinkProperties);

const withLinksExtras = {
  releaseId: Nullable(Uuid),
  notes: NullableString,
  externalMetadata: Nullable(Type.Object({}, { additionalProperties: true })),
};

/** TimeEntryWithLinks (GET /time-entries/:id); releaseId and externalMetadata are additive. */
export const TimeEntryWithLinks = Type.Object(
  { ...common, ...withLinksExtras, integrationLinks: Type.Array(TimeEntryLink) },
  { description: 'TimeEntryWithLinks' },
);

/** SyncTimeEntryResponse. */
export const SyncTimeEntryResponse = Type.Object(
  { ...common, ...withLinksExtras, integrationLinkId: Uuid, created: Type.Boolean() },
  { description: 'SyncTimeEntryResponse' },
);

/** TimeSummary. */
export const TimeSummary = Type.Object({
  projectId: Uuid,
  releaseId: Nullable(Uuid),
  totalMinutes: Type.Integer(),
  totalHours: Type.String(),
  billableMinutes: Type.Integer(),
  byStatus: Type.Record(Type.String(), Type.Integer()),
  byUser: Type.Array(Type.Object({ userId: Uuid, totalMinutes: Type.Integer() })),
});

/** CostSummary. */
export const CostSummary = Type.Object({
  projectId: Uuid,
  currency: Type.String(),
  plannedCost: NullableString,
  actualCost: NullableString,
  approvedCost: NullableString,
  pendingCost: NullableString,
});

const DateQuery = DateOnly;

/** Query schemas of the time entry filters. */
export const TimeEntryFilters = propertiesOf(TIME_ENTRY_FILTERS)({
  status: StringEnum(TIME_ENTRY_STATUSES),
  userId: Uuid,
  entryId: Uuid,
  releaseId: Uuid,
  from: DateQuery,
  to: DateQuery,
});

/** Query of the time summary. */
export const TimeSummaryQuery = Type.Object({
  releaseId: Type.Optional(Uuid),
  from: Type.Optional(DateQuery),
  to: Type.Optional(DateQuery),
});
