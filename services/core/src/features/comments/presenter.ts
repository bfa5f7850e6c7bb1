import type { JsonObject } from '@bufbuild/protobuf';
import { COMMENT_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { CommentRow } from './store.ts';

/** What leaves the core for a comment: the spec's Comment (COMMENT_FIELDS; content is answered as `body`). */
export function presentComment(row: CommentRow): JsonObject {
  return presentFields(row, COMMENT_FIELDS);
}
