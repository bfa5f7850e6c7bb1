import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import { ADMIN_ROLES, isRole, type Role } from '@cluster/contracts';
import { DomainError, conflict, validation } from '@cluster/platform';
import { type Actor, requireActor } from '../../lib/actor.ts';
import { createExternalLink, externalRefOf, lockExternalRef } from '../../lib/external-ref.ts';
import { audit, emit, type DomainEvent } from '../../outbox/record.ts';
import { USER_COLUMNS, userEventPayload } from './service.ts';
import { memberAddedEvent } from '../members/service.ts';

/** Invite answer statuses of the spec: a new user, an existing one, or one reached/linked through externalRef. */
export type InviteStatus = 'invited' | 'existing' | 'linked';

/** The spec's Invite response. */
export interface InviteResult {
  userId: string;
  inviteId: string | null;
  created: boolean;
  status: InviteStatus;
}

/** One item of a bulk request as the gateway forwards it: valid (item) or already refused (error). */
export interface BulkItem {
  index: number;
  item?: Record<string, unknown>;
  error?: string;
}

/** One entry of the spec's bulk `results`. */
export interface BulkResult {
  email: string;
  status: InviteStatus | 'error';
  userId: string | null;
  inviteId: string | null;
  error: string | null;
}

interface Outcome extends InviteResult {
  user: Record<string, unknown>;
  /** Set when this call linked an externalRef to a user that already existed (user.linked). */
  link?: Record<string, unknown>;
}

/**
 * POST /users/invite and /users/bulk-invite. Invites create users (default role
 * `user`), their project memberships, and, when asked, an outbound invitation
 * record (no SMTP: a mailer would read the `invites` table). An `externalRef`
 * makes the call an idempotent upsert; an e-mail already in the organization
 * answers the existing user (created: false).
 */
export function createInviteService(db: Knex) {
  return {
    async invite(actorIn: Actor | undefined, body: Record<string, unknown>): Promise<InviteResult> {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const out = await inviteOne(trx, actor, body, body.sendInvite !== false);
        await audit(trx, actor, auditOf(out));
        await emit(trx, actor.organizationId, actor, eventsOf(out, actor));
        return { userId: out.userId, inviteId: out.inviteId, created: out.created, status: out.status };
      });
    },

    /** Every item on its own savepoint: one item's failure never undoes another's success. */
    async bulkInvite(actorIn: Actor | undefined, body: Record<string, unknown>): Promise<{ results: BulkResult[]; successCount: number; failureCount: number }> {
      const actor = requireActor(actorIn);
      const items = (body.invites ?? []) as BulkItem[];
      const sendInvite = body.sendInvite === true;
      return db.transaction(async (trx) => {
        const results: BulkResult[] = [];
        const done: Outcome[] = [];
        for (const { item, error } of [...items].sort((a, b) => a.index - b.index)) {
          const email = typeof item?.email === 'string' ? item.email : '';
          if (!item || error) {
            results.push({ email, status: 'error', userId: null, inviteId: null, error: error ?? 'invalid item' });
            continue;
          }
          try {
            const out = await trx.transaction((sp) => inviteOne(sp, actor, item, sendInvite));
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
        for (const out of done) await audit(trx, actor, { ...auditOf(out), metadata: { ...auditOf(out).metadata, bulk: true } });
        if (successCount) {
          await emit(trx, actor.organizationId, actor, [{
            eventName: 'user.bulk_invited', entityType: 'organization', entityId: actor.organizationId,
            payload: {
              organizationId: actor.organizationId, actorId: actor.userId || null, successCount, failureCount,
              users: done.map((o) => ({ userId: o.userId, email: o.user.email, status: o.status, created: o.created })),
            },
          }]);
        }
        return { results, successCount, failureCount };
      });
    },
  };
}

async function inviteOne(trx: Knex.Transaction, actor: Actor, item: Record<string, unknown>, sendInvite: boolean): Promise<Outcome> {
  const org = actor.organizationId;
  const email = String(item.email).trim();
  const role = (item.role ?? 'user') as Role;
  if (!isRole(role) || ADMIN_ROLES.includes(role)) {
    throw validation([{ path: '/role', message: 'must be an organization role other than admin and platform_admin' }]);
  }
  const projectIds = [...new Set((item.projectIds ?? []) as string[])];
  const known = new Set(
    (await trx('projects').where({ organizationId: org }).whereIn('id', projectIds.filter(isUuid)).select('id')).map((r) => r.id as string),
  );
  const unknown = projectIds.map((id, i) => ({ id, i })).filter(({ id }) => !known.has(id));
  if (unknown.length) throw validation(unknown.map(({ i }) => ({ path: `/projectIds/${i}`, message: 'is not a project of this organization' })));

  // One invite per e-mail at a time in an organization (the unique index would otherwise fail a concurrent twin).
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`invite|${org}|${email.toLowerCase()}`]);
  const ref = externalRefOf(item);
  if (ref) {
    const link = await lockExternalRef(trx, org, ref);
    if (link) {
      if (link.alignEntityType !== 'user') throw conflict(`externalRef is already linked to a ${String(link.alignEntityType)}`);
      const user = await trx('users').select(USER_COLUMNS).where({ id: link.alignEntityId, organizationId: org }).first();
      if (user) return { user, userId: user.id, inviteId: null, created: false, status: 'linked' };
      await trx('integration_links').where({ id: link.id }).del(); // its user is gone: provision anew
    }
  }

  const existing = await trx('users').select(USER_COLUMNS).where({ organizationId: org }).whereRaw('lower(email) = lower(?)', [email]).first();
  if (existing) {
    if (!ref) return { user: existing, userId: existing.id, inviteId: null, created: false, status: 'existing' };
    const link = (await createExternalLink(trx, actor, ref, 'user', existing.id, null))!;
    return { user: existing, userId: existing.id, inviteId: null, created: false, status: 'linked', link };
  }

  const [user] = await trx('users')
    .insert({
      organizationId: org, email, name: item.name, role,
      metadata: item.metadata === undefined || item.metadata === null ? null : JSON.stringify(item.metadata),
    })
    .returning(USER_COLUMNS);
  if (projectIds.length) {
    const members = await trx('project_members').insert(projectIds.map((projectId) => ({ projectId, userId: user.id }))).returning('*');
    await emit(trx, org, actor, members.map((m) => memberAddedEvent(m, org)));
  }
  let inviteId: string | null = null;
  if (sendInvite) {
    const [invite] = await trx('invites')
      .insert({ organizationId: org, userId: user.id, email, invitedByUserId: actor.userId || null, apiKeyId: actor.apiKeyId })
      .returning('id');
    inviteId = invite.id;
  }
  if (ref) await createExternalLink(trx, actor, ref, 'user', user.id, null);
  return { user, userId: user.id, inviteId, created: true, status: 'invited' };
}

function auditOf(out: Outcome) {
  return {
    entityType: 'user', action: out.created ? 'invited' : out.link ? 'linked' : 'invite_matched', entityId: out.userId,
    entityName: out.user.name as string, metadata: { status: out.status, created: out.created, inviteId: out.inviteId } as Record<string, unknown>,
  };
}

function eventsOf(out: Outcome, actor: Actor): DomainEvent[] {
  const base = userEventPayload(out.user, actor.userId || null);
  if (out.created) return [{ eventName: 'user.invited', entityType: 'user', entityId: out.userId, payload: base }];
  if (out.link) {
    return [{
      eventName: 'user.linked', entityType: 'user', entityId: out.userId,
      payload: {
        ...base, integrationLinkId: out.link.id, provider: out.link.provider, externalType: out.link.externalType,
        externalId: out.link.externalId,
      },
    }];
  }
  return [];
}
