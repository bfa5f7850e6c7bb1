import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { formatHours, formatWorkDate } from './duration.ts';

type Row = Record<string, unknown>;

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));
const json = (v: unknown): JsonValue => (v === undefined ? null : (v as JsonValue));

/** The fields every shape of a time entry shares (TimeEntryWithLinks minus notes and links). */
function common(row: Row): JsonObject {
  return {
    id: json(row.id),
    organizationId: json(row.organizationId),
    projectId: json(row.projectId),
    userId: json(row.userId),
    entryId: json(row.entryId),
    workDate: formatWorkDate(row.workDate),
    hours: formatHours(Number(row.minutes)),
    minutes: Number(row.minutes),
    billable: Boolean(row.billable),
    source: json(row.source),
    status: json(row.status),
    invoiced: Boolean(row.invoiced),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** TimeEntry of the spec: what lists, creates, updates and transitions answer. */
export function presentTimeEntry(row: Row): JsonObject {
  const { createdAt, updatedAt, ...rest } = common(row);
  return { ...rest, releaseId: json(row.releaseId), description: json(row.description), createdAt, updatedAt };
}

/** IntegrationLink of the spec. */
export function presentLink(row: Row): JsonObject {
  return {
    id: json(row.id),
    organizationId: json(row.organizationId),
    provider: json(row.provider),
    externalType: json(row.externalType),
    externalId: json(row.externalId),
    alignEntityType: json(row.alignEntityType),
    alignEntityId: json(row.alignEntityId),
    createdAt: iso(row.createdAt),
  };
}

/**
 * TimeEntryWithLinks (GET /time-entries/:id): `notes` in place of description and
 * every attached link; additively releaseId and the synced externalMetadata.
 */
export function presentWithLinks(row: Row, links: Row[]): JsonObject {
  return {
    ...common(row),
    releaseId: json(row.releaseId),
    notes: json(row.description),
    externalMetadata: json(row.externalMetadata),
    integrationLinks: links.map(presentLink),
  };
}

/** SyncTimeEntryResponse: TimeEntryWithLinks without the links, plus integrationLinkId and created. */
export function presentSynced(row: Row, integrationLinkId: string, created: boolean): JsonObject {
  const { integrationLinks: _links, ...rest } = presentWithLinks(row, []);
  return { ...rest, integrationLinkId, created };
}

/** The payload fields every time.* event shares (spec, "Payloads"); occurredAt is added by the outbox. */
export function timeEventPayload(row: Row): Record<string, unknown> {
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
