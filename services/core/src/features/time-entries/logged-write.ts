import type { Actor } from '@cluster/proto';
import { apiWrite, type ActorEvent } from '../../shared/write.ts';
import { timeEntryName, timeEvent } from './events.ts';
import type { TimeEntryRow } from './store.ts';

/**
 * The write of a new time entry, made through the API (crud.ts) or by a sync (sync.ts): its
 * audit record (created, with `metadata`) and time.logged after the events of its new integration link.
 */
export function loggedWrite(
  actor: Actor,
  row: TimeEntryRow,
  projectId: string,
  metadata: Record<string, unknown>,
  linkEvents: ActorEvent[],
) {
  return apiWrite(
    actor,
    { entityType: 'time_entry', action: 'created', entityId: row.id, entityName: timeEntryName(row), projectId, metadata },
    [...linkEvents, timeEvent('time.logged', row)],
  );
}
