import type { JsonObject } from '@bufbuild/protobuf';
import { INTEGRATION_LINK_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { ExternalLinkRow } from '../../shared/external-ref.ts';

/**
 * What leaves the core for an integration link: the spec's IntegrationLink (INTEGRATION_LINK_FIELDS),
 * never its projectId. The one presenter of a link: the links of a time entry too.
 */
export function presentLink(row: ExternalLinkRow): JsonObject {
  return presentFields(row, INTEGRATION_LINK_FIELDS);
}
