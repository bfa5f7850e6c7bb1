import { Type, type Static } from '@sinclair/typebox';
import { Body, DateTime, Nullable, NullableString, Uuid, propertiesOf } from './common.ts';

/** A MIME type (RFC 6838 type/subtype, optional parameters). */
export const MimeType = Type.String({
  pattern:
    '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\\s*;\\s*[A-Za-z0-9!#$&^_.+-]+=("[^"]*"|[A-Za-z0-9!#$&^_.+-]+))*$',
  description: 'MIME type, e.g. image/png',
});

/** Every field of the registration body, each a column (entryId and uploadedById are set by the server). */
export const ATTACHMENT_WRITABLE_FIELDS = [
  'fileName',
  'fileSize',
  'fileType',
  'objectPath',
  'category',
  'isAiGenerated',
  'sourceAssistantUploadId',
  'sourceAssistantConversationId',
  'linkedByUserId',
  'addedVia',
  'attachmentSource',
  'evidenceSummary',
  'removedAt',
  'removedByUserId',
  'removedVia',
  'replacementAttachmentId',
  'replacementOfAttachmentId',
  'lifecycleReason',
  'attachmentStatus',
] as const;
export type AttachmentWritableField = (typeof ATTACHMENT_WRITABLE_FIELDS)[number];
/**
 * Every field of an answered attachment, in the table's column order (the order of the answer's JSON):
 * the spec's Attachment, every registered field and updatedAt. Never organizationId or projectId.
 */
export const ATTACHMENT_FIELDS = [
  'id',
  'entryId',
  'fileName',
  'fileSize',
  'fileType',
  'objectPath',
  'uploadedById',
  'category',
  'isAiGenerated',
  'sourceAssistantUploadId',
  'sourceAssistantConversationId',
  'linkedByUserId',
  'addedVia',
  'attachmentSource',
  'evidenceSummary',
  'removedByUserId',
  'removedVia',
  'replacementAttachmentId',
  'replacementOfAttachmentId',
  'lifecycleReason',
  'attachmentStatus',
  'removedAt',
  'createdAt',
  'updatedAt',
] as const;

/** POST /entries/:id/attachments body. */
export const AttachmentCreate = Body(
  propertiesOf(ATTACHMENT_WRITABLE_FIELDS)({
    fileName: Type.String({ minLength: 1 }),
    fileSize: Type.String({ pattern: '^\\d+$', maxLength: 19, description: 'bytes as a decimal string' }),
    fileType: MimeType,
    objectPath: Type.String({ minLength: 1 }),
    category: NullableString,
    isAiGenerated: NullableString,
    sourceAssistantUploadId: NullableString,
    sourceAssistantConversationId: NullableString,
    linkedByUserId: NullableString,
    addedVia: NullableString,
    attachmentSource: NullableString,
    evidenceSummary: NullableString,
    removedByUserId: NullableString,
    removedVia: NullableString,
    replacementAttachmentId: NullableString,
    replacementOfAttachmentId: NullableString,
    lifecycleReason: NullableString,
    removedAt: Nullable(DateTime),
    attachmentStatus: Type.String(),
  }),
  { required: ['fileName', 'fileSize', 'fileType', 'objectPath'], description: 'Attachment registration body' },
);
export type AttachmentCreateBody = Static<typeof AttachmentCreate>;

/** The spec's Attachment. */
export const Attachment = Type.Object(
  {
    id: Uuid,
    entryId: Uuid,
    fileName: Type.String(),
    fileSize: Type.String(),
    fileType: Type.String(),
    objectPath: Type.String(),
    category: NullableString,
    uploadedById: Nullable(Uuid),
    createdAt: DateTime,
  },
  { additionalProperties: true, description: 'Attachment, with every optional field of the registration body' },
);
