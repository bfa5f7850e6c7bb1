import type { JsonObject } from '@bufbuild/protobuf';
import { MEMBER_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { MemberRow } from './store.ts';

/** What leaves the core for a project member (spec ProjectMember): MEMBER_FIELDS, null when unset. */
export function presentMember(row: MemberRow): JsonObject {
  return presentFields(row, MEMBER_FIELDS);
}
