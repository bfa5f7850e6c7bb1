import type { EmittedEventName } from '@cluster/contracts';
import type { ActorEvent } from '../../shared/write.ts';
import { formatHours, formatWorkDate } from './duration.ts';
import { timeEventPayload } from './presenter.ts';
import type { TimeEntryAction } from './state-machine.ts';
import type { TimeEntryRow } from './store.ts';

/** The event of each state transition (an edit is time.updated, only when a field changed). */
export const TIME_EVENT_OF: Record<Exclude<TimeEntryAction, 'update'>, EmittedEventName> = {
  submit: 'time.submitted',
  approve: 'time.approved',
  reject: 'time.rejected',
  unlock: 'time.unlocked',
};

/** The audit trail's name of an entry: "2.50h on 2026-03-05". */
export function timeEntryName(row: TimeEntryRow): string {
  return `${formatHours(Number(row.minutes))}h on ${formatWorkDate(row.workDate)}`;
}

/** A time.* event of an entry: the shared payload (timeEventPayload) plus the event's own fields. */
export function timeEvent(eventName: EmittedEventName, row: TimeEntryRow, extra: Record<string, unknown> = {}): ActorEvent {
  return {
    eventName,
    entityType: 'time_entry',
    entityId: row.id,
    projectId: row.projectId,
    payload: { ...timeEventPayload(row), ...extra },
  };
}
