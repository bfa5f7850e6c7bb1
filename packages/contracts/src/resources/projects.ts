import { Type, type Static } from '@sinclair/typebox';
import { AnyJson, Body, DateTime, Nullable, NullableString, StringEnum, Uuid, propertiesOf } from './common.ts';

/** Values of a project's `status` (spec). */
export const PROJECT_STATUSES = ['active', 'on_hold', 'completed', 'archived'] as const;

/**
 * Every column a project body may set: the spec's create body, plus clientId on update.
 * The order is the order of `changedFields` in events and audit records.
 */
export const PROJECT_WRITABLE_FIELDS = [
  'name',
  'description',
  'status',
  'clientId',
  'logoUrl',
  'wikiContent',
  'chatWebhookUrl',
  'devUrl',
  'prodUrl',
  'hostingAppUrl',
  'hostingWorkspaceId',
  'hostingBoardId',
  'hostingInstanceId',
  'hostingAppName',
  'lastAiStatusUpdate',
  'committedCostLockedAt',
  'customLinks',
  'requireCascadeApproval',
  'codehostCommentSyncEnabled',
  'codehostAutoStatusEnabled',
  'codehostAdvancedEnabled',
  'enforceDependencyBlocking',
  'autoStatusOnUnblock',
  'requireAutoStatusApproval',
  'ciRequired',
  'commitScorerEnabled',
  'flakyOverridesEnabled',
  'codehostAiSuggesterEnabled',
  'codehostAiRiskEnabled',
  'releaseNotesAiEnabled',
  'statusUpdateAiEnabled',
  'prDescriptionAiEnabled',
  'reviewerSuggesterAiEnabled',
  'commitLinterAiEnabled',
  'timeBillingEnabled',
  'invoicingMode',
  'codehostAutoStatusTarget',
  'autoStatusTargetStatus',
  'ciCheckRunName',
  'autoLinkThreshold',
  'suggestThreshold',
  'scorerRecencyDays',
] as const;
export type ProjectWritableField = (typeof PROJECT_WRITABLE_FIELDS)[number];
/** Project columns stored as JSON (jsonb). */
export const PROJECT_JSON_FIELDS = ['customLinks'] as const;
/** Filters of the project list. */
export const PROJECT_FILTERS = ['status'] as const;
/**
 * Every field of an answered project, in the table's column order (the order of the answer's JSON):
 * the spec's Project and every writable field. Never its internal entry counter.
 */
export const PROJECT_FIELDS = [
  'id',
  'organizationId',
  'clientId',
  'name',
  'description',
  'status',
  'logoUrl',
  'wikiContent',
  'chatWebhookUrl',
  'devUrl',
  'prodUrl',
  'hostingAppUrl',
  'hostingWorkspaceId',
  'hostingBoardId',
  'hostingInstanceId',
  'hostingAppName',
  'lastAiStatusUpdate',
  'invoicingMode',
  'codehostAutoStatusTarget',
  'autoStatusTargetStatus',
  'ciCheckRunName',
  'autoLinkThreshold',
  'suggestThreshold',
  'committedCostLockedAt',
  'customLinks',
  'requireCascadeApproval',
  'codehostCommentSyncEnabled',
  'codehostAutoStatusEnabled',
  'codehostAdvancedEnabled',
  'enforceDependencyBlocking',
  'autoStatusOnUnblock',
  'requireAutoStatusApproval',
  'ciRequired',
  'commitScorerEnabled',
  'flakyOverridesEnabled',
  'codehostAiSuggesterEnabled',
  'codehostAiRiskEnabled',
  'releaseNotesAiEnabled',
  'statusUpdateAiEnabled',
  'prDescriptionAiEnabled',
  'reviewerSuggesterAiEnabled',
  'commitLinterAiEnabled',
  'timeBillingEnabled',
  'scorerRecencyDays',
  'createdAt',
  'updatedAt',
] as const;

const Url = Nullable(Type.String({ format: 'uri' }));

const projectFields = propertiesOf(PROJECT_WRITABLE_FIELDS)({
  name: Type.String({ minLength: 1 }),
  description: Type.String(),
  clientId: Type.String(),
  status: StringEnum(PROJECT_STATUSES),
  wikiContent: NullableString,
  hostingWorkspaceId: NullableString,
  hostingBoardId: NullableString,
  hostingInstanceId: NullableString,
  hostingAppName: NullableString,
  lastAiStatusUpdate: NullableString,
  logoUrl: Url,
  chatWebhookUrl: Url,
  devUrl: Url,
  prodUrl: Url,
  hostingAppUrl: Url,
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
});
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

/** The spec's Project. */
export const Project = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    description: Type.String(),
    status: StringEnum(PROJECT_STATUSES),
    organizationId: Nullable(Uuid),
    clientId: Type.String(),
    logoUrl: Nullable(Type.String()),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Project, with every optional field of the create body' },
);

/** Query schemas of the project filters. */
export const ProjectFilters = propertiesOf(PROJECT_FILTERS)({ status: StringEnum(PROJECT_STATUSES) });
