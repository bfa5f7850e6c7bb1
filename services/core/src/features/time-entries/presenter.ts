import type { JsonObject } from '@bufbuild/protobuf';
import { TIME_ENTRY_LINK_FIELDS } from '@cluster/contracts';
import type { ExternalLinkRow } from '../../shared/external-ref.ts';
import { presentLink } from '../integration-links/presenter.ts';
import { formatHours, formatWorkDate } from './duration.ts';
import type { TimeEntryRow } from './store.ts';

/** The fields every shape of a time entry shares (TimeEntryWithLinks minus notes and links). */
function common(row: TimeEntryRow): JsonObject {
  return {
    id: row.id,
    organizationId: row.organizationId,
    projectId: row.projectId,
    userId: row.userId,
    entryId: row.entryId ?? null,
    workDate: formatWorkDate(row.workDate),
    hours: formatHours(Number(row.minutes)),
    minutes: Number(row.minutes),
    billable: Boolean(row.billable),
    source: row.source,
    status: row.status,
    invoiced: Boolean(row.invoiced),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** TimeEntry of the spec: what lists, creates, updates and transitions answer. */
export function presentTimeEntry(row: TimeEntryRow): JsonObject {
  const { createdAt, updatedAt, ...rest } = common(row);
  return { ...rest, releaseId: row.releaseId ?? null, description: row.description ?? null, createdAt, updatedAt };
}

/**
 * TimeEntryWithLinks (GET /time-entries/:id): `notes` in place of description and
 * every attached link (the spec's TimeEntryLink, presentLink); additively releaseId and the synced externalMetadata.
 */
export function presentWithLinks(row: TimeEntryRow, links: ExternalLinkRow[]): JsonObject {
  return {
    ...common(row),
    releaseId: row.releaseId ?? null,
    notes: row.description ?? null,
    externalMetadata: row.externalMetadata ?? null,
    integrationLinks: links.map((link) => presentLink(link, { fields: TIME_ENTRY_LINK_FIELDS })),
  };
}

/** SyncTimeEntryResponse: TimeEntryWithLinks without the links, plus integrationLinkId and created. */
export function presentSynced(row: TimeEntryRow, integrationLinkId: string, created: boolean): JsonObject {
  const { integrationLinks: _links, ...rest } = presentWithLinks(row, []);
  return { ...rest, integrationLinkId, created };
}

/** The payload fields every time.* event shares (spec, "Payloads"); occurredAt is added by the outbox. */
export function timeEventPayload(row: TimeEntryRow) {
  return {
    timeEntryId: row.id,
    organizationId: row.organizationId,
    projectId: row.projectId,
    userId: row.userId,
    entryId: row.entryId ?? null,
    workDate: formatWorkDate(row.workDate),
    hours: formatHours(Number(row.minutes)),
    minutes: Number(row.minutes),
    status: row.status,
  };
}
