import { integrationLinkPayload } from '../../shared/external-ref.ts';
import type { ActorEvent } from '../../shared/write.ts';
import type { IntegrationLinkRow } from './store.ts';

// integration_link.created is shared with the externalRef upserts: externalLinkCreatedEvent (shared/external-ref.ts).

/** integration_link.updated: the link with the fields a re-pointing changed. */
export function integrationLinkUpdatedEvent(row: IntegrationLinkRow, changedFields: string[]): ActorEvent {
  return {
    eventName: 'integration_link.updated',
    entityType: 'integration_link',
    entityId: row.id,
    projectId: row.projectId,
    payload: { ...integrationLinkPayload(row), changedFields },
  };
}

/** The audit entityName of a link: its external record. */
export function linkName(row: IntegrationLinkRow): string {
  return `${row.provider}:${row.externalType}:${row.externalId}`;
}
