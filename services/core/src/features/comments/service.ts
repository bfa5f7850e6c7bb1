import type { Knex } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { type Actor, requireActor } from '../../lib/actor.ts';
import { changedFields, toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';
import { recordWrite } from '../../outbox/record.ts';
import { loadVisible, loadVisibleEntry } from '../entries/lookup.ts';

const COMMENT_FIELDS = ['body', 'isInternal', 'isAiGenerated'] as const;

/** What leaves the core for a comment: the spec's fields (content is answered as `body`) plus the flags. */
export function presentComment(row: Record<string, unknown>): JsonObject {
  return toJson(row, ['organizationId', 'projectId']);
}

/** Body fields to columns: the request's `content` is stored (and answered) as `body`. */
function columns(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body.content !== undefined) out.body = body.content;
  if (body.isInternal !== undefined) out.isInternal = body.isInternal;
  if (body.isAiGenerated !== undefined) out.isAiGenerated = body.isAiGenerated;
  return out;
}

/** Comments of entries; posting one emits entry.commented. */
export function createCommentService(db: Knex) {
  const load = (trx: Knex, actor: Actor, id: string, lock: 'none' | 'update' = 'none') =>
    loadVisible(trx, actor, 'comments', id, 'comment', lock);

  return {
    async list(actorIn: Actor | undefined, entryId: string, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      await loadVisibleEntry(db, actor, entryId);
      return paginate(db('comments').where({ entryId }), page, pageSize, presentComment);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentComment(await load(db, actor, id));
    },

    async create(actorIn: Actor | undefined, entryId: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const entry = await loadVisibleEntry(trx, actor, entryId, 'share');
        const [row] = await trx('comments')
          .insert({
            ...columns(body), entryId, projectId: entry.projectId, organizationId: actor.organizationId,
            authorId: actor.userId || null,
          })
          .returning('*');
        await recordWrite(
          trx, actor,
          { entityType: 'comment', action: 'created', entityId: row.id, projectId: row.projectId, metadata: { entryId } },
          [{
            eventName: 'entry.commented', entityType: 'entry', entityId: entryId, projectId: row.projectId,
            payload: {
              entryId, projectId: entry.projectId, title: entry.title, type: entry.type, status: entry.status,
              commentId: row.id, authorId: row.authorId, body: row.body, isInternal: row.isInternal,
            },
          }],
        );
        return presentComment(row);
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const before = await load(trx, actor, id, 'update');
        const values = columns(body);
        const [row] = Object.keys(values).length
          ? await trx('comments').where({ id }).update({ ...values, updatedAt: trx.fn.now() }).returning('*')
          : [before];
        const changed = changedFields(before, row, COMMENT_FIELDS);
        await recordWrite(trx, actor, {
          entityType: 'comment', action: 'updated', entityId: id, projectId: row.projectId,
          metadata: { entryId: row.entryId, changedFields: changed },
        });
        return presentComment(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await db.transaction(async (trx) => {
        const row = await load(trx, actor, id, 'update');
        await trx('comments').where({ id }).del();
        await recordWrite(trx, actor, {
          entityType: 'comment', action: 'deleted', entityId: id, projectId: row.projectId as string, metadata: { entryId: row.entryId },
        });
      });
    },
  };
}
