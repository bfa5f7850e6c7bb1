import type { JsonObject } from '@bufbuild/protobuf';
import { APPROVER_ROLES, type Role, type TimeEntryApproveBody, type TimeEntryReasonBody } from '@cluster/contracts';
import { forbidden, requireActor, validation } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { loadTimeEntry } from './checks.ts';
import { TIME_EVENT_OF, timeEntryName, timeEvent } from './events.ts';
import { presentTimeEntry } from './presenter.ts';
import { APPROVER_ACTIONS, nextStatus, type TimeEntryAction } from './state-machine.ts';

/** A move of the state machine other than an edit. */
type Transition = Exclude<TimeEntryAction, 'update'>;

/** The body of a transition: approve's optional note, reject's and unlock's reason; submit has none. */
type TransitionBody = { note?: string | null; reason?: string };

const AUDIT_ACTION_OF: Record<Transition, string> = {
  submit: 'submitted',
  approve: 'approved',
  reject: 'rejected',
  unlock: 'unlocked',
};

/**
 * The approval moves of a time entry (the machine itself is state-machine.ts): who may make
 * them, which need a reason, and for each one status move, its time.* event and its audit record
 * in one transaction.
 */
export function createTimeEntryTransitions(stores: Stores) {
  async function transition(
    actorIn: Actor | undefined,
    id: string,
    action: Transition,
    body: TransitionBody,
  ): Promise<{ resource: JsonObject }> {
    const actor = requireActor(actorIn);
    if (APPROVER_ACTIONS.includes(action) && !APPROVER_ROLES.includes(actor.role as Role)) {
      throw forbidden('requires role manager or admin');
    }
    const reason = typeof body.reason === 'string' ? body.reason.trim() : '';
    if ((action === 'reject' || action === 'unlock') && !reason) {
      throw validation([{ path: '/reason', message: 'is required and must not be empty' }]);
    }
    return stores.transaction(async (tx) => {
      const before = await loadTimeEntry(tx, actor, id, true);
      const previousStatus = before.status;
      const status = nextStatus(action, previousStatus);
      const row = await tx.timeEntries.update(id, { status });
      const extra: Record<string, unknown> =
        action === 'approve'
          ? { approverUserId: actor.userId }
          : action === 'reject'
            ? { rejecterUserId: actor.userId, reason }
            : action === 'unlock'
              ? { unlockedByUserId: actor.userId, reason, status: previousStatus, newStatus: status }
              : {};
      const note = typeof body.note === 'string' ? body.note : undefined;
      await tx.record(
        apiWrite(
          actor,
          {
            entityType: 'time_entry',
            action: AUDIT_ACTION_OF[action],
            entityId: id,
            entityName: timeEntryName(row),
            projectId: row.projectId,
            metadata: {
              previousStatus,
              newStatus: status,
              ...(reason ? { reason } : {}),
              ...(note !== undefined ? { note } : {}),
            },
          },
          [timeEvent(TIME_EVENT_OF[action], row, extra)],
        ),
      );
      return { resource: presentTimeEntry(row) };
    });
  }

  return {
    /** draft or rejected -> submitted (time.submitted). */
    submit: (actor: Actor | undefined, id: string) => transition(actor, id, 'submit', {}),
    /** submitted -> locked (time.approved, status locked); manager or admin. Optional note goes to the audit trail. */
    approve: (actor: Actor | undefined, id: string, body: TimeEntryApproveBody) => transition(actor, id, 'approve', body),
    /** submitted -> rejected (time.rejected with the reason); manager or admin. */
    reject: (actor: Actor | undefined, id: string, body: TimeEntryReasonBody) => transition(actor, id, 'reject', body),
    /** locked -> draft (time.unlocked, status locked, newStatus draft); manager or admin. */
    unlock: (actor: Actor | undefined, id: string, body: TimeEntryReasonBody) => transition(actor, id, 'unlock', body),
  };
}
