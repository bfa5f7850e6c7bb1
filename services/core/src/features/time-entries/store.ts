import type { JsonValue } from '@bufbuild/protobuf';
import { isUuid, type Knex, jsonbValues, paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';
import type { ExternalLinkMethods, ExternalLinkRow } from '../../shared/external-ref.ts';
import { externalLinkMethods } from '../../shared/external-links.ts';
import { findRow } from '../../shared/find-by-id.ts';
import type { Values } from '../../shared/rows.ts';

/** A time entry row (every column; presenters decide what leaves the core). */
export interface TimeEntryRow {
  id: string;
  organizationId: string;
  projectId: string;
  userId: string;
  entryId: string | null;
  releaseId: string | null;
  workDate: Date;
  minutes: number;
  description: string | null;
  billable: boolean;
  source: string;
  status: string;
  invoiced: boolean;
  externalSystem: string | null;
  externalId: string | null;
  externalMetadata: JsonValue | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Filters of a list, already checked (dates YYYY-MM-DD, ids UUIDs). `projectId` null or absent: every project. */
export interface TimeEntryFilter {
  projectId?: string | null;
  status?: string;
  userId?: string;
  entryId?: string;
  releaseId?: string;
  from?: string;
  to?: string;
}

/** Minutes of a project's time entries per user, status and billability (the input of a TimeSummary). */
export interface MinutesGroup {
  userId: string;
  status: string;
  billable: boolean;
  minutes: number;
}

/** The cost sums of a project's entries (decimal strings with 2 decimals, null when no entry contributes). */
export interface CostSums {
  plannedCost: string | null;
  actualCost: string | null;
  approvedCost: string | null;
  pendingCost: string | null;
}

/** Time entries in Postgres: all SQL of the feature (entries can be created through an externalRef or a sync). */
export interface TimeEntryStore extends ExternalLinkMethods {
  /** One page of an organization's time entries matching `filter`. */
  list(organizationId: string, filter: TimeEntryFilter, page: PageArgs): Promise<Page<TimeEntryRow>>;
  /** An entry by id, of any organization (locked for the transaction with `lock`), or undefined. Non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: boolean }): Promise<TimeEntryRow | undefined>;
  /** An entry of the organization by id, or undefined (the target of an externalRef's link). */
  findInOrganization(organizationId: string, id: string): Promise<TimeEntryRow | undefined>;
  /** The entry synced from an external system's record, or undefined. */
  findSynced(organizationId: string, externalSystem: string, externalId: string): Promise<TimeEntryRow | undefined>;
  /** Every integration link of an entry, oldest first. */
  linksOf(organizationId: string, id: string): Promise<ExternalLinkRow[]>;
  insert(values: Values<TimeEntryRow>): Promise<TimeEntryRow>;
  /**
   * Inserts a synced entry; undefined when its externalSystem + externalId is already
   * synced (the unique constraint: concurrent repeats create one row, nothing written).
   */
  insertSynced(values: Values<TimeEntryRow>): Promise<TimeEntryRow | undefined>;
  update(id: string, values: Values<TimeEntryRow>): Promise<TimeEntryRow>;
  /** Whether `id` is an entry (`entry`) or a release (`release`) of the project. */
  hasWorkItem(kind: 'entry' | 'release', id: string, projectId: string): Promise<boolean>;
  /** A project's minutes grouped by user, status and billability, optionally for one release and a workDate range. */
  minutesGroups(projectId: string, filter: { releaseId: string | null; from?: string; to?: string }): Promise<MinutesGroup[]>;
  /** The cost sums of a project's entries (docs/decisions-time.md; see summaries.ts). */
  costSums(projectId: string): Promise<CostSums>;
}

/** A cost field that holds a plain decimal number (anything else is not counted). */
const DECIMAL = '^\\s*[+-]?[0-9]+(\\.[0-9]+)?\\s*$';

// Columns stored as jsonb: which ones are is a detail of this table, so the contract does not list them.
const JSON_COLUMNS = ['externalMetadata'];

/** workDate range (inclusive) shared by lists and the time summary. */
function inRange(q: Knex.QueryBuilder, range: { from?: string; to?: string }): void {
  if (range.from !== undefined) q.andWhere('workDate', '>=', range.from);
  if (range.to !== undefined) q.andWhere('workDate', '<=', range.to);
}

/** The knex implementation of TimeEntryStore. */
export function createTimeEntryStore(db: Knex): TimeEntryStore {
  return {
    ...externalLinkMethods(db),
    list(organizationId, filter, page) {
      const q = db<TimeEntryRow>('time_entries').where({ organizationId });
      if (filter.projectId) q.andWhere({ projectId: filter.projectId });
      if (filter.status !== undefined) q.andWhere({ status: filter.status });
      for (const f of ['userId', 'entryId', 'releaseId'] as const) if (filter[f] !== undefined) q.andWhere(f, filter[f]);
      inRange(q, filter);
      return paginate<TimeEntryRow>(q, page);
    },
    find(id, opts = {}) {
      return findRow(db<TimeEntryRow>('time_entries'), id, opts.lock ? 'update' : undefined);
    },
    findInOrganization(organizationId, id) {
      return db<TimeEntryRow>('time_entries').where({ id, organizationId }).first();
    },
    findSynced(organizationId, externalSystem, externalId) {
      return db<TimeEntryRow>('time_entries').where({ organizationId, externalSystem, externalId }).first();
    },
    linksOf(organizationId, id) {
      return db<ExternalLinkRow>('integration_links')
        .where({ organizationId, alignEntityType: 'time_entry', alignEntityId: id })
        .orderBy([
          { column: 'createdAt', order: 'asc' },
          { column: 'id', order: 'asc' },
        ]);
    },
    async insert(values) {
      const [row] = await db<TimeEntryRow>('time_entries').insert(jsonbValues(values, JSON_COLUMNS)).returning('*');
      return row;
    },
    async insertSynced(values) {
      const [row] = await db<TimeEntryRow>('time_entries')
        .insert(jsonbValues(values, JSON_COLUMNS))
        .onConflict(['organizationId', 'externalSystem', 'externalId'])
        .ignore()
        .returning('*');
      return row;
    },
    async update(id, values) {
      const [row] = await db<TimeEntryRow>('time_entries')
        .where({ id })
        .update({ ...jsonbValues(values, JSON_COLUMNS), updatedAt: db.fn.now() })
        .returning('*');
      return row;
    },
    async hasWorkItem(kind, id, projectId) {
      if (!isUuid(id)) return false;
      return Boolean(
        await db(kind === 'entry' ? 'entries' : 'releases')
          .where({ id, projectId })
          .first('id'),
      );
    },
    async minutesGroups(projectId, filter) {
      const q = db<TimeEntryRow>('time_entries').where({ projectId });
      if (filter.releaseId) q.andWhere({ releaseId: filter.releaseId });
      inRange(q, filter);
      const groups: { userId: string; status: string; billable: boolean; minutes: number | string }[] = await q
        .select('userId', 'status', 'billable')
        .sum({ minutes: 'minutes' })
        .groupBy('userId', 'status', 'billable');
      return groups.map((g) => ({ ...g, minutes: Number(g.minutes) }));
    },
    async costSums(projectId) {
      const { rows } = await db.raw<{ rows: CostSums[] }>(
        `WITH re AS (SELECT CAST(? AS text) AS num),
         e AS (
           SELECT
             CASE
               WHEN x."mediumCost" ~ re.num THEN CAST(x."mediumCost" AS numeric)
               WHEN x."lowCost" ~ re.num AND x."highCost" ~ re.num THEN (CAST(x."lowCost" AS numeric) + CAST(x."highCost" AS numeric)) / 2
               WHEN x."lowCost" ~ re.num THEN CAST(x."lowCost" AS numeric)
               WHEN x."highCost" ~ re.num THEN CAST(x."highCost" AS numeric)
             END AS planned,
             CASE WHEN x."committedCost" ~ re.num THEN CAST(x."committedCost" AS numeric) END AS committed,
             x."costApprovalStatus" AS approval
           FROM entries x CROSS JOIN re
           WHERE x."projectId" = ?
         )
         SELECT
           CAST(round(sum(planned), 2) AS text) AS "plannedCost",
           CAST(round(sum(committed) FILTER (WHERE approval IS DISTINCT FROM 'rejected'), 2) AS text) AS "actualCost",
           CAST(round(sum(committed) FILTER (WHERE approval = 'approved'), 2) AS text) AS "approvedCost",
           CAST(round(sum(committed) FILTER (WHERE approval IN ('pending_admin', 'pending_manager', 'pending_client')), 2) AS text) AS "pendingCost"
         FROM e`,
        [DECIMAL, projectId],
      );
      return rows[0];
    },
  };
}
