import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { conflict, notFound } from '@cluster/platform';
import { type Actor, projectInScope, requireActor } from '../../lib/actor.ts';
import { changedFields, pickColumns, toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';
import { recordWrite, type DomainEvent } from '../../outbox/record.ts';

const MEMBER_COLUMNS = ['id', 'projectId', 'userId', 'roleOverride', 'metadata', 'createdAt'] as const;
const UPDATABLE = ['roleOverride', 'metadata'] as const;

/** What leaves the core for a project member (spec ProjectMember). */
export function presentMember(row: Record<string, unknown>): JsonObject {
  return toJson(Object.fromEntries(MEMBER_COLUMNS.map((c) => [c, row[c] ?? null])));
}

function payload(row: Record<string, unknown>, organizationId: string) {
  return { memberId: row.id, projectId: row.projectId, userId: row.userId, roleOverride: row.roleOverride ?? null, organizationId };
}

/** project_member.added for a membership row (also made by invites with projectIds). */
export function memberAddedEvent(row: Record<string, unknown>, organizationId: string): DomainEvent {
  return {
    eventName: 'project_member.added', entityType: 'project_member', entityId: row.id as string,
    projectId: row.projectId as string, payload: payload(row, organizationId),
  };
}

/** Membership of one project: /projects/:id/members[/:memberId]. */
export function createMemberService(db: Knex) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      await projectInScope(db, actor, projectId);
      return paginate(db('project_members').select(MEMBER_COLUMNS).where({ projectId }), page, pageSize, presentMember);
    },

    async add(actorIn: Actor | undefined, projectId: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        await projectInScope(trx, actor, projectId);
        const userId = body.userId as string;
        const user = isUuid(userId) ? await trx('users').where({ id: userId, organizationId: actor.organizationId }).first('id', 'name') : undefined;
        if (!user) throw notFound('user');
        const values = pickColumns(body, UPDATABLE, ['metadata']);
        const [row] = await trx('project_members')
          .insert({ ...values, projectId, userId })
          .onConflict(['projectId', 'userId'])
          .ignore()
          .returning(MEMBER_COLUMNS);
        if (!row) throw conflict('the user is already a member of this project', { userId });
        await recordWrite(
          trx, actor,
          { entityType: 'project_member', action: 'added', entityId: row.id, entityName: user.name, projectId },
          [memberAddedEvent(row, actor.organizationId)],
        );
        return presentMember(row);
      });
    },

    async update(actorIn: Actor | undefined, projectId: string, memberId: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const before = await load(trx, actor, projectId, memberId);
        const values = pickColumns(body, UPDATABLE, ['metadata']);
        const [row] = Object.keys(values).length
          ? await trx('project_members').where({ id: memberId }).update(values).returning(MEMBER_COLUMNS)
          : [before];
        const changed = changedFields(before, row, UPDATABLE);
        await recordWrite(
          trx, actor,
          { entityType: 'project_member', action: 'updated', entityId: memberId, projectId, metadata: { changedFields: changed } },
          changed.length
            ? [{
              eventName: 'project_member.updated', entityType: 'project_member', entityId: memberId, projectId,
              payload: { ...payload(row, actor.organizationId), changedFields: changed },
            }]
            : [],
        );
        return presentMember(row);
      });
    },

    async remove(actorIn: Actor | undefined, projectId: string, memberId: string) {
      const actor = requireActor(actorIn);
      await db.transaction(async (trx) => {
        const row = await load(trx, actor, projectId, memberId);
        await trx('project_members').where({ id: memberId }).del();
        await recordWrite(
          trx, actor,
          { entityType: 'project_member', action: 'removed', entityId: memberId, projectId },
          [{ eventName: 'project_member.removed', entityType: 'project_member', entityId: memberId, projectId, payload: payload(row, actor.organizationId) }],
        );
      });
    },
  };
}

/** A member of the project in the path (locked for the write); another project's member id: 404. */
async function load(trx: Knex.Transaction, actor: Actor, projectId: string, memberId: string) {
  await projectInScope(trx, actor, projectId);
  if (!isUuid(memberId)) throw notFound('project member');
  const row = await trx('project_members').select(MEMBER_COLUMNS).where({ id: memberId, projectId }).forUpdate().first();
  if (!row) throw notFound('project member');
  return row;
}
