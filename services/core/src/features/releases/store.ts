import { RELEASE_FILTERS } from '@cluster/contracts';
import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findById, type RowLock } from '../../shared/find-by-id.ts';

/** A release row as stored (releasedEventSent: release.released was emitted, once). */
export type ReleaseRow = Record<string, unknown> & {
  id: string;
  projectId: string;
  organizationId: string;
  name: string;
  status: string;
  releasedEventSent: boolean;
};

/** The filters of GET /projects/:id/releases (the contract's RELEASE_FILTERS), each an exact match. */
export type ReleaseFilter = Partial<Record<(typeof RELEASE_FILTERS)[number], string>>;

/** Releases in Postgres: all SQL of the feature. */
export interface ReleaseStore {
  /** One page of a project's releases, with exact-match filters. */
  list(projectId: string, filter: ReleaseFilter, page: PageArgs): Promise<Page<ReleaseRow>>;
  /** A release by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<ReleaseRow | undefined>;
  /** Inserts a release; `releasedNow` sets releasedAt to the transaction's time. */
  insert(values: Record<string, unknown>, opts?: { releasedNow?: boolean }): Promise<ReleaseRow>;
  /** Updates columns; `releasedNow` sets releasedAt to the transaction's time. */
  update(id: string, values: Record<string, unknown>, opts?: { releasedNow?: boolean }): Promise<ReleaseRow | undefined>;
  remove(id: string): Promise<void>;
}

/** The knex implementation of ReleaseStore. */
export function createReleaseStore(db: Knex): ReleaseStore {
  const releasedAt = (opts: { releasedNow?: boolean }) => (opts.releasedNow ? { releasedAt: db.fn.now() } : {});
  return {
    list(projectId, filter, page) {
      const q = db('releases').where({ projectId });
      for (const f of RELEASE_FILTERS) if (filter[f] !== undefined) q.andWhere(f, filter[f]);
      return paginate<ReleaseRow>(q, page);
    },
    find(id, opts = {}) {
      return findById<ReleaseRow>(db, 'releases', id, opts.lock);
    },
    async insert(values, opts = {}) {
      const [row] = await db('releases')
        .insert({ ...values, ...releasedAt(opts) })
        .returning('*');
      return row as ReleaseRow;
    },
    async update(id, values, opts = {}) {
      const [row] = await db('releases')
        .where({ id })
        .update({ ...values, ...releasedAt(opts), updatedAt: db.fn.now() })
        .returning('*');
      return row as ReleaseRow | undefined;
    },
    async remove(id) {
      await db('releases').where({ id }).del();
    },
  };
}
