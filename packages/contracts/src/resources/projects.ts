import { Type, type Static } from '@sinclair/typebox';
import { AnyJson, Body, DateTime, Nullable, NullableString, StringEnum, Uuid, fieldsOf, propertiesOf } from './common.ts';

/** Values of a project's `status` (spec). */
export const PROJECT_STATUSES = ['active', 'on_hold', 'completed', 'archived'] as const;

/** Project columns stored as JSON (jsonb). */
export const PROJECT_JSON_FIELDS = ['customLinks'] as const;
/** Filters of the project list. */
export const PROJECT_FILTERS = ['status'] as const;

const Url = Nullable(Type.String({ format: 'uri' }));

/**
 * Every field a project body may set: the spec's create body, plus clientId on update.
 * The order is the order of `changedFields` in events and audit records.
 */
const projectFields = {
  name: Type.String({ minLength: 1 }),
  description: Type.String(),
  status: StringEnum(PROJECT_STATUSES),
  clientId: Type.String(),
  logoUrl: Url,
  wikiContent: NullableString,
  chatWebhookUrl: Url,
  devUrl: Url,
  prodUrl: Url,
  hostingAppUrl: Url,
  hostingWorkspaceId: NullableString,
  hostingBoardId: NullableString,
  hostingInstanceId: NullableString,
  hostingAppName: NullableString,
  lastAiStatusUpdate: NullableString,
  committedCostLockedAt: Nullable(DateTime),
  customLinks: AnyJson,
  requireCascadeApproval: Type.Boolean(),
  codehostCommentSyncEnabled: Type.Boolean(),
  codehostAutoStatusEnabled: Type.Boolean(),
  codehostAdvancedEnabled: Type.Boolean(),
  enforceDependencyBlocking: Type.Boolean(),
  autoStatusOnUnblock: Type.Boolean(),
  requireAutoStatusApproval: Type.Boolean(),
  ciRequired: Type.Boolean(),
  commitScorerEnabled: Type.Boolean(),
  flakyOverridesEnabled: Type.Boolean(),
  codehostAiSuggesterEnabled: Type.Boolean(),
  codehostAiRiskEnabled: Type.Boolean(),
  releaseNotesAiEnabled: Type.Boolean(),
  statusUpdateAiEnabled: Type.Boolean(),
  prDescriptionAiEnabled: Type.Boolean(),
  reviewerSuggesterAiEnabled: Type.Boolean(),
  commitLinterAiEnabled: Type.Boolean(),
  timeBillingEnabled: Type.Boolean(),
  invoicingMode: Type.String(),
  codehostAutoStatusTarget: Type.String(),
  autoStatusTargetStatus: Type.String(),
  ciCheckRunName: Type.String(),
  autoLinkThreshold: Type.String(),
  suggestThreshold: Type.String(),
  scorerRecencyDays: Type.Integer({ minimum: -2147483648, maximum: 2147483647 }),
};
// A create takes every field but clientId.
const { clientId: _clientId, ...projectCreateFields } = projectFields;

/** POST /projects body. */
export const ProjectCreate = Body(projectCreateFields, { required: ['name', 'description'], description: 'Project create body' });
export type ProjectCreateBody = Static<typeof ProjectCreate>;

/** PATCH /projects/:id body. */
export const ProjectUpdate = Body(projectFields, {
  description: 'Project update body: every field optional; only supplied fields change',
});
export type ProjectUpdateBody = Static<typeof ProjectUpdate>;

/** Every column a project body sets, in the order of `changedFields`: the update body's fields. */
export const PROJECT_WRITABLE_FIELDS = fieldsOf(ProjectUpdate);
export type ProjectWritableField = (typeof PROJECT_WRITABLE_FIELDS)[number];

/**
 * The spec's Project, with every field of the body, in the table's column order (the order of the
 * answer's JSON). Never its internal entry counter.
 */
export const Project = Type.Object(
  {
    id: Uuid,
    organizationId: Nullable(Uuid),
    clientId: Type.String(),
    name: Type.String(),
    description: Type.String(),
    status: StringEnum(PROJECT_STATUSES),
    logoUrl: NullableString,
    wikiContent: NullableString,
    chatWebhookUrl: NullableString,
    devUrl: NullableString,
    prodUrl: NullableString,
    hostingAppUrl: NullableString,
    hostingWorkspaceId: NullableString,
    hostingBoardId: NullableString,
    hostingInstanceId: NullableString,
    hostingAppName: NullableString,
    lastAiStatusUpdate: NullableString,
    invoicingMode: NullableString,
    codehostAutoStatusTarget: NullableString,
    autoStatusTargetStatus: NullableString,
    ciCheckRunName: NullableString,
    autoLinkThreshold: NullableString,
    suggestThreshold: NullableString,
    committedCostLockedAt: Nullable(DateTime),
    customLinks: AnyJson,
    requireCascadeApproval: Type.Boolean(),
    codehostCommentSyncEnabled: Type.Boolean(),
    codehostAutoStatusEnabled: Type.Boolean(),
    codehostAdvancedEnabled: Type.Boolean(),
    enforceDependencyBlocking: Type.Boolean(),
    autoStatusOnUnblock: Type.Boolean(),
    requireAutoStatusApproval: Type.Boolean(),
    ciRequired: Type.Boolean(),
    commitScorerEnabled: Type.Boolean(),
    flakyOverridesEnabled: Type.Boolean(),
    codehostAiSuggesterEnabled: Type.Boolean(),
    codehostAiRiskEnabled: Type.Boolean(),
    releaseNotesAiEnabled: Type.Boolean(),
    statusUpdateAiEnabled: Type.Boolean(),
    prDescriptionAiEnabled: Type.Boolean(),
    reviewerSuggesterAiEnabled: Type.Boolean(),
    commitLinterAiEnabled: Type.Boolean(),
    timeBillingEnabled: Type.Boolean(),
    scorerRecencyDays: Nullable(Type.Integer()),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Project, with every field of the create body' },
);
/** Every field of an answered project, in order: Project's fields. */
export const PROJECT_FIELDS = fieldsOf(Project);

/** Query schemas of the project filters. */
export const ProjectFilters = propertiesOf(PROJECT_FILTERS)({ status: StringEnum(PROJECT_STATUSES) });
