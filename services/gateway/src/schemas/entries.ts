import { Type, StringEnum, Nullable, NullableString, AnyJson, Body, DateTime, Uuid, type TSchema } from './common.ts';

export const ENTRY_TYPES = [
  'feature_request', 'bug_report', 'feedback', 'validation', 'documentation', 'platform_infrastructure', 'ci_cd', 'security',
] as const;
export const ENTRY_STATUSES = ['open', 'assigned', 'in_progress', 'deployed', 'solved'] as const;
export const ENTRY_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export const COST_APPROVAL_STATUSES = ['draft', 'pending_admin', 'pending_manager', 'pending_client', 'approved', 'rejected'] as const;
export const DEPLOYMENT_STAGES = ['testing', 'staging', 'production'] as const;

/** Money as a non-negative decimal string (spec: money values are decimal strings). */
export const Money = Type.String({ pattern: '^\\d+(\\.\\d+)?$', description: 'decimal string, e.g. 1200.50' });

const nullableStrings = [
  'webLink', 'stepsToReproduce', 'expectedBehavior', 'actualBehavior', 'environment', 'useCase', 'proposedSolution',
  'committedPosition', 'costSource', 'costOverrideReason',
] as const;
const moneyFields = ['lowCost', 'mediumCost', 'highCost', 'committedCost'] as const;

const entryOptional: Record<string, TSchema> = {
  assignedToId: Nullable(Uuid),
  releaseId: Nullable(Uuid),
  priority: StringEnum(ENTRY_PRIORITIES),
  status: StringEnum(ENTRY_STATUSES),
  ...Object.fromEntries(nullableStrings.map((k) => [k, NullableString])),
  ...Object.fromEntries(moneyFields.map((k) => [k, Nullable(Money)])),
  statusChangedAt: Nullable(DateTime),
  approvalStatus: Nullable(StringEnum(APPROVAL_STATUSES)),
  costApprovalStatus: Nullable(StringEnum(COST_APPROVAL_STATUSES)),
  typeMetadata: AnyJson,
  // Read-only (set by deployment webhooks): accepted in bodies and ignored, as the spec says.
  deploymentStage: Type.Unsafe<unknown>({ description: 'read-only; ignored in bodies' }),
};

export const EntryCreate = Body(
  { type: StringEnum(ENTRY_TYPES), title: Type.String({ minLength: 1 }), description: Type.String(), ...entryOptional },
  { required: ['type', 'title', 'description'], description: 'Entry create body' },
);

export const EntryUpdate = Body(
  { type: StringEnum(ENTRY_TYPES), title: Type.String({ minLength: 1 }), description: Type.String(), ...entryOptional },
  { description: 'Entry update body: every field optional; only supplied fields change; projectId cannot change' },
);

export const Entry = Type.Object(
  {
    id: Uuid, projectId: Uuid, entryNumber: Nullable(Type.Integer()), type: StringEnum(ENTRY_TYPES), title: Type.String(),
    description: Type.String(), status: StringEnum(ENTRY_STATUSES), priority: StringEnum(ENTRY_PRIORITIES),
    assignedToId: Nullable(Uuid), releaseId: Nullable(Uuid), typeMetadata: AnyJson,
    deploymentStage: Nullable(StringEnum(DEPLOYMENT_STAGES)), creatorId: Nullable(Uuid), createdAt: DateTime, updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Entry, with every optional field of the create body' },
);

export const EntryFilters = {
  status: StringEnum(ENTRY_STATUSES),
  type: StringEnum(ENTRY_TYPES),
  priority: StringEnum(ENTRY_PRIORITIES),
  assignedToId: Uuid,
  releaseId: Uuid,
};

const commentFields = { content: Type.String({ minLength: 1 }), isInternal: NullableString, isAiGenerated: NullableString };

export const CommentCreate = Body(commentFields, { required: ['content'], description: 'Comment create body' });
export const CommentUpdate = Body(commentFields, { description: 'Comment update body: every field optional' });

export const Comment = Type.Object(
  {
    id: Uuid, entryId: Uuid, body: Type.String(), authorId: Nullable(Uuid), isInternal: NullableString,
    isAiGenerated: NullableString, createdAt: DateTime, updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Comment (the create body `content` is answered as `body`)' },
);

/** A MIME type (RFC 6838 type/subtype, optional parameters). */
export const MimeType = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\\s*;\\s*[A-Za-z0-9!#$&^_.+-]+=("[^"]*"|[A-Za-z0-9!#$&^_.+-]+))*$',
  description: 'MIME type, e.g. image/png',
});

const attachmentNullableStrings = [
  'category', 'isAiGenerated', 'sourceAssistantUploadId', 'sourceAssistantConversationId', 'linkedByUserId', 'addedVia',
  'attachmentSource', 'evidenceSummary', 'removedByUserId', 'removedVia', 'replacementAttachmentId',
  'replacementOfAttachmentId', 'lifecycleReason',
] as const;

export const AttachmentCreate = Body(
  {
    fileName: Type.String({ minLength: 1 }),
    fileSize: Type.String({ pattern: '^\\d+$', maxLength: 19, description: 'bytes as a decimal string' }),
    fileType: MimeType,
    objectPath: Type.String({ minLength: 1 }),
    ...Object.fromEntries(attachmentNullableStrings.map((k) => [k, NullableString])),
    removedAt: Nullable(DateTime),
    attachmentStatus: Type.String(),
  },
  { required: ['fileName', 'fileSize', 'fileType', 'objectPath'], description: 'Attachment registration body' },
);

export const Attachment = Type.Object(
  {
    id: Uuid, entryId: Uuid, fileName: Type.String(), fileSize: Type.String(), fileType: Type.String(),
    objectPath: Type.String(), category: NullableString, uploadedById: Nullable(Uuid), createdAt: DateTime,
  },
  { additionalProperties: true, description: 'Attachment, with every optional field of the registration body' },
);
