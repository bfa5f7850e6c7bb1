import type { JsonObject } from '@bufbuild/protobuf';
import { ENTRY_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { EntryRow } from './store.ts';

/** What leaves the core for an entry: ENTRY_FIELDS (the spec's Entry and every body field), never organizationId. */
export function presentEntry(row: EntryRow): JsonObject {
  return presentFields(row, ENTRY_FIELDS);
}
