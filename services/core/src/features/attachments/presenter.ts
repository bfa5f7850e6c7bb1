import type { JsonObject } from '@bufbuild/protobuf';
import { ATTACHMENT_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { AttachmentRow } from './store.ts';

/** What leaves the core for an attachment: ATTACHMENT_FIELDS (the spec's fields and every registered field). */
export function presentAttachment(row: AttachmentRow): JsonObject {
  return presentFields(row, ATTACHMENT_FIELDS);
}
