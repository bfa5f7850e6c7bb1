import { MEMBER_UPDATABLE_FIELDS, type MemberCreateBody, type MemberUpdateBody } from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { conflict, notFound, requireActor, type PageArgs, presentPage } from '@cluster/platform';
import { changedFields, pickFields } from '../../shared/fields.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { memberEvent } from './events.ts';
import { presentMember } from './presenter.ts';

/** Membership of one project: /projects/:id/members[/:memberId]. Rules only; SQL is in the store. */
export function createMemberService(stores: Stores) {
  /** A member of the project in the path (locked for the write); another project's member id: 404. */
  async function load(tx: Stores, actor: Actor, projectId: string, memberId: string) {
    await projectInScope(tx.projects, actor, projectId);
    const row = await tx.members.find(projectId, memberId, { lock: true });
    if (!row) throw notFound('project member');
    return row;
  }

  return {
    async list(actorIn: Actor | undefined, projectId: string, page: PageArgs) {
      const actor = requireActor(actorIn);
      await projectInScope(stores.projects, actor, projectId);
      return presentPage(await stores.members.list(projectId, page), presentMember);
    },

    /** Adds a user of the organization (404 otherwise); a user already a member: 409. */
    async add(actorIn: Actor | undefined, projectId: string, body: MemberCreateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        await projectInScope(tx.projects, actor, projectId);
        const userId = body.userId;
        const user = await tx.users.find(actor.organizationId, userId);
        if (!user) throw notFound('user');
        const row = await tx.members.insert({ ...pickFields(body, MEMBER_UPDATABLE_FIELDS), projectId, userId });
        if (!row) throw conflict('the user is already a member of this project', { userId });
        await tx.record(
          apiWrite(actor, { entityType: 'project_member', action: 'added', entityId: row.id, entityName: user.name, projectId }, [
            memberEvent('project_member.added', row, actor.organizationId),
          ]),
        );
        return presentMember(row);
      });
    },

    /** project_member.updated with the changed fields only when something changed; audited either way. */
    async update(actorIn: Actor | undefined, projectId: string, memberId: string, body: MemberUpdateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = await load(tx, actor, projectId, memberId);
        const values = pickFields(body, MEMBER_UPDATABLE_FIELDS);
        const row = Object.keys(values).length ? await tx.members.update(memberId, values) : before;
        const changed = changedFields(before, row, MEMBER_UPDATABLE_FIELDS);
        await tx.record(
          apiWrite(
            actor,
            {
              entityType: 'project_member',
              action: 'updated',
              entityId: memberId,
              projectId,
              metadata: { changedFields: changed },
            },
            changed.length ? [memberEvent('project_member.updated', row, actor.organizationId, { changedFields: changed })] : [],
          ),
        );
        return presentMember(row);
      });
    },

    async remove(actorIn: Actor | undefined, projectId: string, memberId: string) {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = await load(tx, actor, projectId, memberId);
        await tx.members.remove(memberId);
        await tx.record(
          apiWrite(actor, { entityType: 'project_member', action: 'removed', entityId: memberId, projectId }, [
            memberEvent('project_member.removed', row, actor.organizationId),
          ]),
        );
      });
    },
  };
}
