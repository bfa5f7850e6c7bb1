import { PROJECT_JSON_FIELDS, type Project, type RowOf } from '@cluster/contracts';
import { isUuid, type Knex, jsonbValues, paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import { findRow } from '../../shared/find-by-id.ts';
import type { Values } from '../../shared/rows.ts';

/**
 * A project row: every answered field of the contract's Project (timestamps as Dates), the
 * organization it belongs to, and its entry counter (never answered). The presenter decides what leaves the core.
 */
export type ProjectRow = Omit<RowOf<typeof Project>, 'organizationId'> & { organizationId: string; entryCounter: number };

/** Projects in Postgres: all SQL of the feature. */
export interface ProjectStore {
  /** One page of an organization's projects, optionally only one id and one status. */
  list(
    organizationId: string,
    filter: { id?: string | null; status?: ProjectRow['status'] },
    page: PageArgs,
  ): Promise<Page<ProjectRow>>;
  /** A project of the organization (locked for the transaction with `lock`), or undefined. Non-UUID ids find nothing. */
  find(organizationId: string, id: string, opts?: { lock?: boolean }): Promise<ProjectRow | undefined>;
  insert(values: Values<ProjectRow>): Promise<ProjectRow>;
  update(id: string, values: Values<ProjectRow>): Promise<ProjectRow>;
  remove(id: string): Promise<void>;
  /** A project of any organization by id, or undefined (the admin CLI's operator names projects by id alone). */
  findById(id: string): Promise<ProjectRow | undefined>;
  /** Every project of an organization, oldest first, id and name only (the admin CLI's demo answer). */
  listNames(organizationId: string): Promise<{ id: string; name: string }[]>;
  /** Which of `ids` are projects of the organization (non-UUIDs are not). */
  idsIn(organizationId: string, ids: readonly string[]): Promise<Set<string>>;
}

/** The knex implementation of ProjectStore. */
export function createProjectStore(db: Knex): ProjectStore {
  return {
    list(organizationId, filter, page) {
      const q = db<ProjectRow>('projects').where({ organizationId });
      if (filter.id) q.andWhere({ id: filter.id });
      if (filter.status !== undefined) q.andWhere({ status: filter.status });
      return paginate<ProjectRow>(q, page);
    },
    find(organizationId, id, opts = {}) {
      return findRow(db<ProjectRow>('projects').where({ organizationId }), id, opts.lock ? 'update' : undefined);
    },
    async insert(values) {
      const [row] = await db<ProjectRow>('projects').insert(jsonbValues(values, PROJECT_JSON_FIELDS)).returning('*');
      return row;
    },
    async update(id, values) {
      const [row] = await db<ProjectRow>('projects')
        .where({ id })
        .update({ ...jsonbValues(values, PROJECT_JSON_FIELDS), updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
    async remove(id) {
      await db<ProjectRow>('projects').where({ id }).del();
    },
    findById(id) {
      return findRow(db<ProjectRow>('projects'), id);
    },
    listNames(organizationId) {
      return db<ProjectRow>('projects').where({ organizationId }).orderBy('createdAt').select('id', 'name');
    },
    async idsIn(organizationId, ids) {
      const rows: { id: string }[] = await db<ProjectRow>('projects')
        .where({ organizationId })
        .whereIn('id', ids.filter(isUuid))
        .select('id');
      return new Set(rows.map((r) => r.id));
    },
  };
}
