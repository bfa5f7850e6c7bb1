import type { Comment, RowOf } from '@cluster/contracts';
import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findRow, type RowLock } from '../../shared/find-by-id.ts';
import { columnValues, type Values } from '../../shared/rows.ts';

/** A Comment row: every field of the contract's Comment answer (timestamps as Dates), and the columns the core keeps to itself. */
export type CommentRow = RowOf<typeof Comment> & { projectId: string; organizationId: string };

/** Comments in Postgres: all SQL of the feature. */
export interface CommentStore {
  /** One page of an entry's comments. */
  list(entryId: string, page: PageArgs): Promise<Page<CommentRow>>;
  /** A comment by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<CommentRow | undefined>;
  insert(values: Values<CommentRow>): Promise<CommentRow>;
  update(id: string, values: Values<CommentRow>): Promise<CommentRow>;
  remove(id: string): Promise<void>;
}

/** The knex implementation of CommentStore. */
export function createCommentStore(db: Knex): CommentStore {
  return {
    list(entryId, page) {
      return paginate<CommentRow>(db<CommentRow>('comments').where({ entryId }), page);
    },
    find(id, opts = {}) {
      return findRow(db<CommentRow>('comments'), id, opts.lock);
    },
    async insert(values) {
      const [row] = await db<CommentRow>('comments').insert(columnValues(values)).returning('*');
      return row;
    },
    async update(id, values) {
      const [row] = await db<CommentRow>('comments')
        .where({ id })
        .update({ ...columnValues(values), updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
    async remove(id) {
      await db<CommentRow>('comments').where({ id }).del();
    },
  };
}
