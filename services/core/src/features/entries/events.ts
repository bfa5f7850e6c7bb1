import type { EmittedEventName } from '@cluster/contracts';
import type { Values } from '../../shared/rows.ts';
import type { ActorEvent } from '../../shared/write.ts';
import type { EntryRow } from './store.ts';

/** An entry as its events read it: a row, or a new entry before it is written. */
type EntryFields = Values<EntryRow> & { id: string; projectId: string };

/** The fields every entry event carries (spec: entry.created). */
function basePayload(row: EntryFields) {
  return { entryId: row.id, projectId: row.projectId, title: row.title, type: row.type, status: row.status };
}

/** An entry.* event of an entry (row or new entry), with the base payload and `extra`. */
export function entryEvent(eventName: EmittedEventName, row: EntryFields, extra: Record<string, unknown> = {}): ActorEvent {
  return {
    eventName,
    entityType: 'entry',
    entityId: row.id,
    projectId: row.projectId,
    payload: { ...basePayload(row), ...extra },
  };
}

/** Events of an entry create: entry.created, and entry.assigned when it has an assignee. */
export function createEvents(entry: EntryFields): ActorEvent[] {
  const events = [entryEvent('entry.created', entry)];
  if (entry.assignedToId)
    events.push(entryEvent('entry.assigned', entry, { assignedToId: entry.assignedToId, previousAssignedToId: null }));
  return events;
}

/** Events of an entry update, in order: updated, status_changed, assigned, cost.approved/rejected. None when nothing changed. */
export function updateEvents(before: EntryRow, row: EntryRow, changed: readonly string[]): ActorEvent[] {
  if (!changed.length) return [];
  const events = [entryEvent('entry.updated', row, { changedFields: changed })];
  if (changed.includes('status')) {
    events.push(entryEvent('entry.status_changed', row, { previousStatus: before.status, newStatus: row.status }));
  }
  if (changed.includes('assignedToId')) {
    events.push(entryEvent('entry.assigned', row, { assignedToId: row.assignedToId, previousAssignedToId: before.assignedToId }));
  }
  const cost = row.costApprovalStatus;
  if (changed.includes('costApprovalStatus') && (cost === 'approved' || cost === 'rejected')) {
    events.push({
      ...entryEvent(cost === 'approved' ? 'cost.approved' : 'cost.rejected', row),
      payload: {
        entryId: row.id,
        projectId: row.projectId,
        title: row.title,
        costApprovalStatus: cost,
        previousCostApprovalStatus: before.costApprovalStatus,
        committedCost: row.committedCost,
      },
    });
  }
  return events;
}
