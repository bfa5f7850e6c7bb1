import type { JsonObject } from '@bufbuild/protobuf';
import { INTEGRATION_LINK_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { ExternalLinkRow } from '../../shared/external-ref.ts';

/**
 * What leaves the core for an integration link: the spec's IntegrationLink (INTEGRATION_LINK_FIELDS),
 * never its projectId. The one presenter of a link: a time entry lists its links with it too, with
 * `fields` TIME_ENTRY_LINK_FIELDS (the spec's TimeEntryLink: the same fields but updatedAt). An options
 * object, so that `rows.map(presentLink)` (which passes an index) still presents an IntegrationLink.
 */
export function presentLink(
  row: ExternalLinkRow,
  opts: { fields?: readonly (typeof INTEGRATION_LINK_FIELDS)[number][] } = {},
): JsonObject {
  return presentFields(row, opts.fields ?? INTEGRATION_LINK_FIELDS);
}
