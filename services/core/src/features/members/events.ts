import type { EmittedEventName } from '@cluster/contracts';
import type { ActorEvent } from '../../shared/write.ts';
import type { MemberRow } from './store.ts';

/** project_member.added / .updated / .removed of a membership row (added also by invites with projectIds). */
export function memberEvent(
  eventName: EmittedEventName,
  row: MemberRow,
  organizationId: string,
  extra: Record<string, unknown> = {},
): ActorEvent {
  return {
    eventName,
    entityType: 'project_member',
    entityId: row.id,
    projectId: row.projectId,
    payload: {
      memberId: row.id,
      projectId: row.projectId,
      userId: row.userId,
      roleOverride: row.roleOverride ?? null,
      organizationId,
      ...extra,
    },
  };
}
