import { RELEASE_FILTERS, type Release, type RowOf } from '@cluster/contracts';
import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findRow, type RowLock } from '../../shared/find-by-id.ts';
import { columnValues, type Values } from '../../shared/rows.ts';

/** A Release row: every field of the contract's Release answer (timestamps as Dates), and the columns the core keeps to itself. */
export type ReleaseRow = RowOf<typeof Release> & { organizationId: string; releasedEventSent: boolean };

/** The filters of GET /projects/:id/releases (the contract's RELEASE_FILTERS), each an exact match. */
export type ReleaseFilter = Partial<Record<(typeof RELEASE_FILTERS)[number], string>>;

/** Releases in Postgres: all SQL of the feature. */
export interface ReleaseStore {
  /** One page of a project's releases, with exact-match filters. */
  list(projectId: string, filter: ReleaseFilter, page: PageArgs): Promise<Page<ReleaseRow>>;
  /** A release by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<ReleaseRow | undefined>;
  /** Inserts a release; `releasedNow` sets releasedAt to the transaction's time. */
  insert(values: Values<ReleaseRow>, opts?: { releasedNow?: boolean }): Promise<ReleaseRow>;
  /** Updates columns; `releasedNow` sets releasedAt to the transaction's time. */
  update(id: string, values: Values<ReleaseRow>, opts?: { releasedNow?: boolean }): Promise<ReleaseRow | undefined>;
  remove(id: string): Promise<void>;
}

/** The knex implementation of ReleaseStore. */
export function createReleaseStore(db: Knex): ReleaseStore {
  const releasedAt = (opts: { releasedNow?: boolean }) => (opts.releasedNow ? { releasedAt: db.fn.now() } : {});
  return {
    list(projectId, filter, page) {
      const q = db<ReleaseRow>('releases').where({ projectId });
      for (const f of RELEASE_FILTERS) if (filter[f] !== undefined) q.andWhere(f, filter[f]);
      return paginate<ReleaseRow>(q, page);
    },
    find(id, opts = {}) {
      return findRow(db<ReleaseRow>('releases'), id, opts.lock);
    },
    async insert(values, opts = {}) {
      const [row] = await db<ReleaseRow>('releases')
        .insert({ ...columnValues(values), ...releasedAt(opts) })
        .returning('*');
      return row;
    },
    async update(id, values, opts = {}) {
      const [row] = await db<ReleaseRow>('releases')
        .where({ id })
        .update({ ...columnValues(values), ...releasedAt(opts), updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
    async remove(id) {
      await db<ReleaseRow>('releases').where({ id }).del();
    },
  };
}
