import { TIME_ENTRY_STATUSES } from '@cluster/contracts';
import { conflict } from '@cluster/platform';

/** A status of a time entry (the contract's TIME_ENTRY_STATUSES). `approved` and `invoiced` are not reachable through v1. */
export type TimeEntryStatus = (typeof TIME_ENTRY_STATUSES)[number];

/** What a caller can do to an existing entry. */
export type TimeEntryAction = 'update' | 'submit' | 'approve' | 'reject' | 'unlock';

/**
 * The whole state machine (spec "Time entry" table plus docs/decisions-api.md):
 * edits in draft and rejected (the status stays), submit from draft or rejected,
 * approve (to locked) and reject from submitted, unlock from locked back to draft.
 */
const TRANSITIONS: Record<TimeEntryAction, { from: readonly TimeEntryStatus[]; to: TimeEntryStatus | 'unchanged' }> = {
  update: { from: ['draft', 'rejected'], to: 'unchanged' },
  submit: { from: ['draft', 'rejected'], to: 'submitted' },
  approve: { from: ['submitted'], to: 'locked' },
  reject: { from: ['submitted'], to: 'rejected' },
  unlock: { from: ['locked'], to: 'draft' },
};

/** Actions only a manager or admin may take (checked against the key's creating user). */
export const APPROVER_ACTIONS: readonly TimeEntryAction[] = ['approve', 'reject', 'unlock'];

/**
 * The status after `action` on an entry in `current`; a move the machine does not
 * allow is 409 `conflict` with `details.currentStatus` (and the statuses it is allowed from).
 */
export function nextStatus(action: TimeEntryAction, current: string): TimeEntryStatus {
  const t = TRANSITIONS[action];
  if (!(t.from as readonly string[]).includes(current)) {
    throw conflict(`cannot ${action} a time entry in status ${current}`, {
      currentStatus: current,
      allowedFrom: [...t.from],
    });
  }
  return t.to === 'unchanged' ? (current as TimeEntryStatus) : t.to;
}
