import type { JsonObject } from '@bufbuild/protobuf';
import { PROJECT_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { ProjectRow } from './store.ts';

/** What leaves the core for a project: PROJECT_FIELDS (the spec's Project and every body field), not its counters. */
export function presentProject(row: ProjectRow): JsonObject {
  return presentFields(row, PROJECT_FIELDS);
}
