import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findById, type RowLock } from '../../shared/find-by-id.ts';

/** A comment row as stored (its text in `body`). */
export type CommentRow = Record<string, unknown> & { id: string; entryId: string; projectId: string; organizationId: string };

/** Comments in Postgres: all SQL of the feature. */
export interface CommentStore {
  /** One page of an entry's comments. */
  list(entryId: string, page: PageArgs): Promise<Page<CommentRow>>;
  /** A comment by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<CommentRow | undefined>;
  insert(values: Record<string, unknown>): Promise<CommentRow>;
  update(id: string, values: Record<string, unknown>): Promise<CommentRow>;
  remove(id: string): Promise<void>;
}

/** The knex implementation of CommentStore. */
export function createCommentStore(db: Knex): CommentStore {
  return {
    list(entryId, page) {
      return paginate<CommentRow>(db('comments').where({ entryId }), page);
    },
    find(id, opts = {}) {
      return findById<CommentRow>(db, 'comments', id, opts.lock);
    },
    async insert(values) {
      const [row] = await db('comments').insert(values).returning('*');
      return row as CommentRow;
    },
    async update(id, values) {
      const [row] = await db('comments')
        .where({ id })
        .update({ ...values, updatedAt: db.fn.now() })
        .returning('*');
      return row as CommentRow;
    },
    async remove(id) {
      await db('comments').where({ id }).del();
    },
  };
}
