import type { JsonObject } from '@bufbuild/protobuf';
import { RELEASE_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { ReleaseRow } from './store.ts';

/** What leaves the core for a release: RELEASE_FIELDS (never organizationId or the internal once-only flag). */
export function presentRelease(row: ReleaseRow): JsonObject {
  return presentFields(row, RELEASE_FIELDS);
}
