import type { ActorEvent } from '../../shared/write.ts';
import type { IntegrationLinkRow } from './store.ts';

/** The payload of integration_link.created / .updated (spec, "Payloads"). */
export function integrationLinkPayload(row: IntegrationLinkRow) {
  return {
    integrationLinkId: row.id, organizationId: row.organizationId, provider: row.provider, externalType: row.externalType,
    externalId: row.externalId, alignEntityType: row.alignEntityType, alignEntityId: row.alignEntityId,
  };
}

/** integration_link.created / .updated of a link (in its project, if it has one). */
export function integrationLinkEvent(eventName: string, row: IntegrationLinkRow, extra: Record<string, unknown> = {}): ActorEvent {
  return {
    eventName, entityType: 'integration_link', entityId: row.id, projectId: row.projectId,
    payload: { ...integrationLinkPayload(row), ...extra },
  };
}

/** The audit entityName of a link: its external record. */
export function linkName(row: IntegrationLinkRow): string {
  return `${row.provider}:${row.externalType}:${row.externalId}`;
}
