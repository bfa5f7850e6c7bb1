import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { notFound } from '@cluster/platform';
import { type Actor, requireActor, visibleProjectId } from '../../lib/actor.ts';
import { changedFields, pickColumns, toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';
import { recordWrite } from '../../outbox/record.ts';

/**
 * The only user columns that ever leave the core. An allow-list, so that
 * passwordHash, mfaSecret or any later secret column can never be answered.
 */
export const USER_COLUMNS = ['id', 'name', 'email', 'role', 'organizationId', 'metadata', 'createdAt', 'updatedAt'] as const;
const UPDATABLE = ['name', 'metadata'] as const;

/** What leaves the core for a user (spec User, plus metadata and updatedAt). */
export function presentUser(row: Record<string, unknown>): JsonObject {
  return toJson(Object.fromEntries(USER_COLUMNS.map((c) => [c, row[c] ?? null])));
}

/** Payload of user.invited / user.updated (spec, "Payloads"). */
export function userEventPayload(user: Record<string, unknown>, actorId: string | null): Record<string, unknown> {
  return {
    userId: user.id, organizationId: user.organizationId, email: user.email, name: user.name, role: user.role, actorId,
  };
}

/** Users of the organization: list (org keys), get (project keys: members of their project), update name/metadata. */
export function createUserService(db: Knex) {
  return {
    async list(actorIn: Actor | undefined, filters: Record<string, unknown>, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      const q = db('users').select(USER_COLUMNS).where({ organizationId: actor.organizationId });
      const scoped = visibleProjectId(actor);
      // The gateway refuses project keys here (scope_violation); should one get through, it sees its members only.
      if (scoped) q.whereIn('id', db('project_members').select('userId').where({ projectId: scoped }));
      if (typeof filters.role === 'string') q.andWhere({ role: filters.role });
      return paginate(q, page, pageSize, presentUser);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentUser(await load(db, actor, id));
    },

    async update(actorIn: Actor | undefined, id: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const before = await load(trx, actor, id, true);
        const values = pickColumns(body, UPDATABLE, ['metadata']);
        const [row] = Object.keys(values).length
          ? await trx('users').where({ id }).update({ ...values, updatedAt: trx.fn.now() }).returning(USER_COLUMNS)
          : [before];
        const changed = changedFields(before, row, UPDATABLE);
        await recordWrite(
          trx, actor,
          { entityType: 'user', action: 'updated', entityId: id, entityName: row.name as string, metadata: { changedFields: changed } },
          changed.length
            ? [{
              eventName: 'user.updated', entityType: 'user', entityId: id,
              payload: { ...userEventPayload(row, actor.userId || null), changedFields: changed },
            }]
            : [],
        );
        return presentUser(row);
      });
    },
  };
}

/**
 * A user by id as the actor may see it: of its organization, and for a
 * project-scoped key a member of its project; otherwise 404.
 */
async function load(db: Knex, actor: Actor, id: string, lock = false): Promise<Record<string, unknown>> {
  if (!isUuid(id)) throw notFound('user');
  const q = db('users').select(USER_COLUMNS).where({ id, organizationId: actor.organizationId });
  const scoped = visibleProjectId(actor);
  if (scoped) q.whereExists(db('project_members').select(db.raw('1')).where({ projectId: scoped }).whereRaw('"userId" = users.id'));
  if (lock) q.forUpdate();
  const row = await q.first();
  if (!row) throw notFound('user');
  return row;
}
