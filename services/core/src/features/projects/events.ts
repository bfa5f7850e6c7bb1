import type { EmittedEventName } from '@cluster/contracts';
import type { ActorEvent } from '../../shared/write.ts';
import type { ProjectRow } from './store.ts';

/** project.created / .updated / .deleted (internal events: not in the webhook vocabulary). */
export function projectEvent(eventName: EmittedEventName, row: ProjectRow, extra: Record<string, unknown> = {}): ActorEvent {
  return {
    eventName,
    entityType: 'project',
    entityId: row.id,
    projectId: row.id,
    payload: { projectId: row.id, name: row.name, status: row.status, organizationId: row.organizationId, ...extra },
  };
}
