import type { ActorEvent } from '../../shared/write.ts';
import type { ExternalLinkRow } from '../../shared/external-ref.ts';
import type { UserRow } from './store.ts';

/** Payload of user.invited / user.updated / user.linked (spec, "Payloads"). */
export function userEventPayload(user: UserRow, actorId: string | null): Record<string, unknown> {
  return { userId: user.id, organizationId: user.organizationId, email: user.email, name: user.name, role: user.role, actorId };
}

/** user.updated with the fields that changed; `actorId` null: made by the operator (admin CLI). */
export function userUpdatedEvent(user: UserRow, actorId: string | null, changedFields: string[]): ActorEvent {
  return {
    eventName: 'user.updated',
    entityType: 'user',
    entityId: user.id,
    payload: { ...userEventPayload(user, actorId), changedFields },
  };
}

/** user.invited: a user created by an invitation. */
export function userInvitedEvent(user: UserRow, actorId: string | null): ActorEvent {
  return { eventName: 'user.invited', entityType: 'user', entityId: user.id, payload: userEventPayload(user, actorId) };
}

/** user.linked: an invitation linked an externalRef to a user that already existed. */
export function userLinkedEvent(user: UserRow, actorId: string | null, link: ExternalLinkRow): ActorEvent {
  return {
    eventName: 'user.linked',
    entityType: 'user',
    entityId: user.id,
    payload: {
      ...userEventPayload(user, actorId),
      integrationLinkId: link.id,
      provider: link.provider,
      externalType: link.externalType,
      externalId: link.externalId,
    },
  };
}

/** user.bulk_invited: one per bulk call that invited (or matched) at least one user, on the organization. */
export function usersBulkInvitedEvent(
  organizationId: string,
  actorId: string | null,
  counts: { successCount: number; failureCount: number },
  users: { userId: string; email: string; status: string; created: boolean }[],
): ActorEvent {
  return {
    eventName: 'user.bulk_invited',
    entityType: 'organization',
    entityId: organizationId,
    payload: { organizationId, actorId, successCount: counts.successCount, failureCount: counts.failureCount, users },
  };
}
