import { Type, StringEnum, Nullable, NullableString, AnyJson, Body, DateTime, Uuid, type TSchema } from './common.ts';

export const PROJECT_STATUSES = ['active', 'on_hold', 'completed', 'archived'] as const;

const nullableStrings = [
  'wikiContent', 'hostingWorkspaceId', 'hostingBoardId', 'hostingInstanceId', 'hostingAppName', 'lastAiStatusUpdate',
] as const;
const nullableUris = ['logoUrl', 'chatWebhookUrl', 'devUrl', 'prodUrl', 'hostingAppUrl'] as const;
const booleans = [
  'requireCascadeApproval', 'codehostCommentSyncEnabled', 'codehostAutoStatusEnabled', 'codehostAdvancedEnabled',
  'enforceDependencyBlocking', 'autoStatusOnUnblock', 'requireAutoStatusApproval', 'ciRequired',
  'commitScorerEnabled', 'flakyOverridesEnabled', 'codehostAiSuggesterEnabled', 'codehostAiRiskEnabled',
  'releaseNotesAiEnabled', 'statusUpdateAiEnabled', 'prDescriptionAiEnabled', 'reviewerSuggesterAiEnabled',
  'commitLinterAiEnabled', 'timeBillingEnabled',
] as const;
const strings = [
  'invoicingMode', 'codehostAutoStatusTarget', 'autoStatusTargetStatus', 'ciCheckRunName', 'autoLinkThreshold', 'suggestThreshold',
] as const;

const optionalFields: Record<string, TSchema> = {
  status: StringEnum(PROJECT_STATUSES),
  ...Object.fromEntries(nullableStrings.map((k) => [k, NullableString])),
  ...Object.fromEntries(nullableUris.map((k) => [k, Nullable(Type.String({ format: 'uri' }))])),
  committedCostLockedAt: Nullable(DateTime),
  customLinks: AnyJson,
  ...Object.fromEntries(booleans.map((k) => [k, Type.Boolean()])),
  ...Object.fromEntries(strings.map((k) => [k, Type.String()])),
  scorerRecencyDays: Type.Integer({ minimum: -2147483648, maximum: 2147483647 }),
};

export const ProjectCreate = Body(
  { name: Type.String({ minLength: 1 }), description: Type.String(), ...optionalFields },
  { required: ['name', 'description'], description: 'Project create body' },
);

export const ProjectUpdate = Body(
  { name: Type.String({ minLength: 1 }), description: Type.String(), clientId: Type.String(), ...optionalFields },
  { description: 'Project update body: every field optional; only supplied fields change' },
);

export const Project = Type.Object(
  {
    id: Uuid, name: Type.String(), description: Type.String(), status: StringEnum(PROJECT_STATUSES),
    organizationId: Nullable(Uuid), clientId: Type.String(), logoUrl: Nullable(Type.String()), createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Project, with every optional field of the create body' },
);

export const ProjectFilters = { status: StringEnum(PROJECT_STATUSES) };
