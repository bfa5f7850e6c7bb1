import { USER_UPDATABLE_FIELDS, type UserUpdateBody } from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { notFound, requireActor, type PageArgs, presentPage } from '@cluster/platform';
import { visibleProjectId } from '../../shared/access.ts';
import { changedFields, pickFields } from '../../shared/fields.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { userUpdatedEvent } from './events.ts';
import { presentUser } from './presenter.ts';

/** Users of the organization: list (org keys), get (project keys: members of their project), update name/metadata (USER_UPDATABLE_FIELDS; role only through the admin CLI). */
export function createUserService(stores: Stores) {
  /**
   * A user by id as the actor may see it: of its organization, and for a
   * project-scoped key a member of its project; otherwise 404.
   */
  async function load(tx: Stores, actor: Actor, id: string, lock = false) {
    const row = await tx.users.find(actor.organizationId, id, { memberOf: visibleProjectId(actor), lock });
    if (!row) throw notFound('user');
    return row;
  }

  return {
    async list(actorIn: Actor | undefined, filters: Record<string, unknown>, page: PageArgs) {
      const actor = requireActor(actorIn);
      // The gateway refuses project keys here (scope_violation); should one get through, it sees its members only.
      const role = typeof filters.role === 'string' ? filters.role : undefined;
      return presentPage(
        await stores.users.list(actor.organizationId, { memberOf: visibleProjectId(actor), role }, page),
        presentUser,
      );
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentUser(await load(stores, actor, id));
    },

    /** user.updated with the changed fields only when something changed; audited either way. */
    async update(actorIn: Actor | undefined, id: string, body: UserUpdateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = await load(tx, actor, id, true);
        const values = pickFields(body, USER_UPDATABLE_FIELDS);
        const row = Object.keys(values).length ? await tx.users.update(id, values) : before;
        const changed = changedFields(before, row, USER_UPDATABLE_FIELDS);
        await tx.record(
          apiWrite(
            actor,
            { entityType: 'user', action: 'updated', entityId: id, entityName: row.name, metadata: { changedFields: changed } },
            changed.length ? [userUpdatedEvent(row, actor.userId || null, changed)] : [],
          ),
        );
        return presentUser(row);
      });
    },
  };
}
