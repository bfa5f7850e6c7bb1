import {
  COMMENT_COLUMN_OF,
  COMMENT_WRITABLE_COLUMNS,
  COMMENT_WRITABLE_FIELDS,
  type CommentCreateBody,
  type CommentUpdateBody,
} from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { requireActor, type PageArgs, presentPage } from '@cluster/platform';
import { assertVisible } from '../../shared/access.ts';
import { changedFields } from '../../shared/fields.ts';
import type { RowLock } from '../../shared/find-by-id.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { visibleEntry } from '../entries/scope.ts';
import { entryCommentedEvent } from './events.ts';
import { presentComment } from './presenter.ts';
import type { CommentStore } from './store.ts';

/** Body fields to columns (COMMENT_COLUMN_OF): the request's `content` is stored (and answered) as `body`. */
function columns(body: CommentUpdateBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of COMMENT_WRITABLE_FIELDS) if (body[f] !== undefined) out[COMMENT_COLUMN_OF[f]] = body[f];
  return out;
}

/** Comments of entries; posting one emits entry.commented. Rules only; SQL is in the store. */
export function createCommentService(stores: Stores) {
  const load = async (comments: CommentStore, actor: Actor, id: string, lock?: RowLock) =>
    assertVisible(actor, await comments.find(id, { lock }), 'comment');

  return {
    async list(actorIn: Actor | undefined, entryId: string, page: PageArgs) {
      const actor = requireActor(actorIn);
      await visibleEntry(stores.entries, actor, entryId);
      return presentPage(await stores.comments.list(entryId, page), presentComment);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentComment(await load(stores.comments, actor, id));
    },

    async create(actorIn: Actor | undefined, entryId: string, body: CommentCreateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        // Shared lock: the entry cannot be deleted under its new comment.
        const entry = await visibleEntry(tx.entries, actor, entryId, 'share');
        const row = await tx.comments.insert({
          ...columns(body),
          entryId,
          projectId: entry.projectId,
          organizationId: actor.organizationId,
          authorId: actor.userId || null,
        });
        await tx.record(
          apiWrite(
            actor,
            { entityType: 'comment', action: 'created', entityId: row.id, projectId: row.projectId, metadata: { entryId } },
            [entryCommentedEvent(entry, row)],
          ),
        );
        return presentComment(row);
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: CommentUpdateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = await load(tx.comments, actor, id, 'update');
        const values = columns(body);
        const row = Object.keys(values).length ? await tx.comments.update(id, values) : before;
        const changed = changedFields(before, row, COMMENT_WRITABLE_COLUMNS);
        await tx.record(
          apiWrite(actor, {
            entityType: 'comment',
            action: 'updated',
            entityId: id,
            projectId: row.projectId,
            metadata: { entryId: row.entryId, changedFields: changed },
          }),
        );
        return presentComment(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = await load(tx.comments, actor, id, 'update');
        await tx.comments.remove(id);
        await tx.record(
          apiWrite(actor, {
            entityType: 'comment',
            action: 'deleted',
            entityId: id,
            projectId: row.projectId,
            metadata: { entryId: row.entryId },
          }),
        );
      });
    },
  };
}
