import type { EmittedEventName } from '@cluster/contracts';
import type { ActorEvent } from '../../shared/write.ts';
import type { ReleaseRow } from './store.ts';

function releaseEvent(eventName: EmittedEventName, row: ReleaseRow, payload: Record<string, unknown>): ActorEvent {
  return { eventName, entityType: 'release', entityId: row.id, projectId: row.projectId, payload };
}

/** release.created. */
export function releaseCreatedEvent(row: ReleaseRow): ActorEvent {
  return releaseEvent('release.created', row, {
    releaseId: row.id,
    projectId: row.projectId,
    name: row.name,
    status: row.status,
    type: row.type,
    version: row.version,
    startDate: row.startDate.toISOString(),
    endDate: row.endDate.toISOString(),
  });
}

/** release.status_changed: every move of the status. */
export function releaseStatusChangedEvent(before: ReleaseRow, row: ReleaseRow): ActorEvent {
  return releaseEvent('release.status_changed', row, {
    releaseId: row.id,
    projectId: row.projectId,
    name: row.name,
    status: row.status,
    previousStatus: before.status,
    newStatus: row.status,
  });
}

/** release.released: the first move into `released` only. */
export function releasedEvent(row: ReleaseRow): ActorEvent {
  return releaseEvent('release.released', row, {
    releaseId: row.id,
    projectId: row.projectId,
    name: row.name,
    status: 'released',
    version: row.version,
    releasedAt: (row.releasedAt as Date).toISOString(),
  });
}
