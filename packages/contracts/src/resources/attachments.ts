import { Type, type Static } from '@sinclair/typebox';
import { Body, DateTime, Nullable, NullableString, Uuid, fieldsOf } from './common.ts';

/** A MIME type (RFC 6838 type/subtype, optional parameters). */
export const MimeType = Type.String({
  pattern:
    '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\\s*;\\s*[A-Za-z0-9!#$&^_.+-]+=("[^"]*"|[A-Za-z0-9!#$&^_.+-]+))*$',
  description: 'MIME type, e.g. image/png',
});

/** POST /entries/:id/attachments body: each field a column (entryId and uploadedById are set by the server). */
export const AttachmentCreate = Body(
  {
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
  },
  { required: ['fileName', 'fileSize', 'fileType', 'objectPath'], description: 'Attachment registration body' },
);
export type AttachmentCreateBody = Static<typeof AttachmentCreate>;
/** Every column the registration body sets: its fields. */
export const ATTACHMENT_WRITABLE_FIELDS = fieldsOf(AttachmentCreate);
export type AttachmentWritableField = (typeof ATTACHMENT_WRITABLE_FIELDS)[number];

/**
 * The spec's Attachment, with every field of the registration body and updatedAt, in the table's
 * column order (the order of the answer's JSON). Never organizationId or projectId.
 */
export const Attachment = Type.Object(
  {
    id: Uuid,
    entryId: Uuid,
    fileName: Type.String(),
    fileSize: Type.String(),
    fileType: Type.String(),
    objectPath: Type.String(),
    uploadedById: Nullable(Uuid),
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
    attachmentStatus: NullableString,
    removedAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { additionalProperties: true, description: 'Attachment, with every field of the registration body' },
);
/** Every field of an answered attachment, in order: Attachment's fields. */
export const ATTACHMENT_FIELDS = fieldsOf(Attachment);
