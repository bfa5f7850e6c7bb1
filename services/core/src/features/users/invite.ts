import type { Actor } from '@cluster/proto';
import type { JsonObject } from '@bufbuild/protobuf';
import { ADMIN_ROLES, isRole, type BulkInviteItemBody, type InviteRequestBody } from '@cluster/contracts';
import { DomainError, conflict, requireActor, validation } from '@cluster/platform';
import { externalLinkCreatedEvent, externalRefOf, type ExternalLinkRow } from '../../shared/external-ref.ts';
import { apiWrite, type ActorEvent, type AuditRecord } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { memberEvent } from '../members/events.ts';
import { userInvitedEvent, userLinkedEvent, usersBulkInvitedEvent } from './events.ts';
import type { UserRow } from './store.ts';

/** Invite answer statuses of the spec: a new user, an existing one, or one reached/linked through externalRef. */
export type InviteStatus = 'invited' | 'existing' | 'linked';

/** The spec's Invite response. */
export interface InviteResult {
  userId: string;
  inviteId: string | null;
  created: boolean;
  status: InviteStatus;
}

/**
 * One item of a bulk request as the gateway forwards it: valid (the item, checked against
 * BulkInviteItem), or already refused (its error, with the item as sent when it was an object).
 */
export type BulkItem =
  { index: number; item: BulkInviteItemBody; error?: undefined } | { index: number; item?: JsonObject | null; error: string };

/** The bulk invite call as the gateway makes it: its items checked one by one (BulkInviteRequest's `invites`). */
export interface BulkInviteCall {
  invites: BulkItem[];
  sendInvite: boolean;
}

/** One entry of the spec's bulk `results`. */
export interface BulkResult {
  email: string;
  status: InviteStatus | 'error';
  userId: string | null;
  inviteId: string | null;
  error: string | null;
}

/** What inviting one e-mail did. */
interface Outcome extends InviteResult {
  user: UserRow;
  /** Set when this call linked an externalRef to a user that already existed (user.linked). */
  link?: ExternalLinkRow;
}

/**
 * POST /users/invite and /users/bulk-invite. Invites create users (default role
 * `user`), their project memberships, and, when asked, an outbound invitation
 * record (no SMTP: a mailer would read the `invites` table). An `externalRef`
 * makes the call an idempotent upsert; an e-mail already in the organization
 * answers the existing user (created: false). Rules only; SQL is in the stores.
 */
export function createInviteService(stores: Stores) {
  return {
    async invite(actorIn: Actor | undefined, body: InviteRequestBody): Promise<InviteResult> {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const out = await inviteOne(tx, actor, body, body.sendInvite !== false);
        await tx.record(apiWrite(actor, auditOf(out), eventsOf(out, actor)));
        return { userId: out.userId, inviteId: out.inviteId, created: out.created, status: out.status };
      });
    },

    /** Every item on its own savepoint: one item's failure never undoes another's success. */
    async bulkInvite(
      actorIn: Actor | undefined,
      body: BulkInviteCall,
    ): Promise<{ results: BulkResult[]; successCount: number; failureCount: number }> {
      const actor = requireActor(actorIn);
      const items = body.invites ?? [];
      const sendInvite = body.sendInvite === true;
      return stores.transaction(async (tx) => {
        const results: BulkResult[] = [];
        const done: Outcome[] = [];
        for (const bulkItem of [...items].sort((a, b) => a.index - b.index)) {
          const email = typeof bulkItem.item?.email === 'string' ? bulkItem.item.email : '';
          if (!bulkItem.item || bulkItem.error !== undefined) {
            results.push({ email, status: 'error', userId: null, inviteId: null, error: bulkItem.error ?? 'invalid item' });
            continue;
          }
          const item = bulkItem.item;
          try {
            const out = await tx.transaction((sp) => inviteOne(sp, actor, item, sendInvite));
            done.push(out);
            results.push({ email, status: out.status, userId: out.userId, inviteId: out.inviteId, error: null });
          } catch (err) {
            if (!(err instanceof DomainError)) throw err;
            const problems = (err.details?.errors ?? []) as { path: string; message: string }[];
            const message = problems.length ? problems.map((p) => `${p.path}: ${p.message}`).join('; ') : err.message;
            results.push({ email, status: 'error', userId: null, inviteId: null, error: message });
          }
        }
        const successCount = done.length;
        const failureCount = results.length - successCount;
        for (const out of done) {
          const rec = auditOf(out);
          await tx.record(apiWrite(actor, { ...rec, metadata: { ...rec.metadata, bulk: true } }));
        }
        if (successCount) {
          const users = done.map((o) => ({ userId: o.userId, email: o.user.email, status: o.status, created: o.created }));
          await tx.record(
            apiWrite(actor, null, [
              usersBulkInvitedEvent(actor.organizationId, actor.userId || null, { successCount, failureCount }, users),
            ]),
          );
        }
        return { results, successCount, failureCount };
      });
    },
  };
}

/**
 * Invites one e-mail: checks, then matches (an externalRef's user, then the
 * e-mail's) or creates the user with its memberships, invitation and link. The
 * events of what it wrote on the way (project_member.added, integration_link.created)
 * are recorded here, inside the item's savepoint.
 */
async function inviteOne(tx: Stores, actor: Actor, item: BulkInviteItemBody, sendInvite: boolean): Promise<Outcome> {
  const org = actor.organizationId;
  const email = String(item.email).trim();
  const role = item.role ?? 'user';
  if (!isRole(role) || ADMIN_ROLES.includes(role)) {
    throw validation([{ path: '/role', message: 'must be an organization role other than admin and platform_admin' }]);
  }
  const projectIds = [...new Set(item.projectIds ?? [])];
  const known = await tx.projects.idsIn(org, projectIds);
  const unknown = projectIds.map((id, i) => ({ id, i })).filter(({ id }) => !known.has(id));
  if (unknown.length)
    throw validation(unknown.map(({ i }) => ({ path: `/projectIds/${i}`, message: 'is not a project of this organization' })));

  // One invite per e-mail at a time in an organization (the unique index would otherwise fail a concurrent twin).
  await tx.users.lockInviteEmail(org, email);
  const ref = externalRefOf(item);
  if (ref) {
    const link = await tx.users.lockExternalRef(org, ref);
    if (link) {
      if (link.alignEntityType !== 'user') throw conflict(`externalRef is already linked to a ${String(link.alignEntityType)}`);
      const user = await tx.users.find(org, link.alignEntityId);
      if (user) return { user, userId: user.id, inviteId: null, created: false, status: 'linked' };
      await tx.users.deleteExternalLink(link.id); // its user is gone: provision anew
    }
  }

  const existing = await tx.users.findByEmail(org, email);
  if (existing) {
    if (!ref) return { user: existing, userId: existing.id, inviteId: null, created: false, status: 'existing' };
    const link = await tx.users.insertExternalLink({
      organizationId: org,
      projectId: null,
      ref,
      alignEntityType: 'user',
      alignEntityId: existing.id,
    });
    if (link) await tx.record(apiWrite(actor, null, [externalLinkCreatedEvent(link)]));
    return { user: existing, userId: existing.id, inviteId: null, created: false, status: 'linked', link };
  }

  const events: ActorEvent[] = [];
  const user = await tx.users.insert({ organizationId: org, email, name: item.name, role, metadata: item.metadata ?? null });
  if (projectIds.length) {
    const members = await tx.members.insertMany(projectIds.map((projectId) => ({ projectId, userId: user.id })));
    events.push(...members.map((m) => memberEvent('project_member.added', m, org)));
  }
  let inviteId: string | null = null;
  if (sendInvite) {
    const invite = await tx.users.insertInvite({
      organizationId: org,
      userId: user.id,
      email,
      invitedByUserId: actor.userId || null,
      apiKeyId: actor.apiKeyId,
    });
    inviteId = invite.id;
  }
  if (ref) {
    const link = await tx.users.insertExternalLink({
      organizationId: org,
      projectId: null,
      ref,
      alignEntityType: 'user',
      alignEntityId: user.id,
    });
    if (link) events.push(externalLinkCreatedEvent(link));
  }
  if (events.length) await tx.record(apiWrite(actor, null, events));
  return { user, userId: user.id, inviteId, created: true, status: 'invited' };
}

/** The audit record of one invitation: invited (created), linked (an externalRef newly linked) or invite_matched. */
function auditOf(out: Outcome): AuditRecord & { metadata: Record<string, unknown> } {
  return {
    entityType: 'user',
    action: out.created ? 'invited' : out.link ? 'linked' : 'invite_matched',
    entityId: out.userId,
    entityName: out.user.name,
    metadata: { status: out.status, created: out.created, inviteId: out.inviteId },
  };
}

/** user.invited for a new user, user.linked for an existing one newly linked; nothing for a match. */
function eventsOf(out: Outcome, actor: Actor): ActorEvent[] {
  if (out.created) return [userInvitedEvent(out.user, actor.userId || null)];
  if (out.link) return [userLinkedEvent(out.user, actor.userId || null, out.link)];
  return [];
}
