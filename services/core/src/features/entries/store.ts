import {
  ENTRY_FIELDS,
  ENTRY_FILTERS,
  ENTRY_JSON_FIELDS,
  ENTRY_WRITABLE_FIELDS,
  type Entry,
  type RowOf,
} from '@cluster/contracts';
import { isUuid, type Knex, jsonbValues, paginate } from '@cluster/db';
import { commitWrite, insertRowCte, WRITTEN, type WriteRecord } from '@cluster/outbox';
import type { Page, PageArgs } from '@cluster/platform';
import { findRow, type RowLock } from '../../shared/find-by-id.ts';
import type { Values } from '../../shared/rows.ts';

/** The filters of GET /projects/:id/entries (the contract's ENTRY_FILTERS), each an exact match. */
export type EntryFilter = Partial<Record<(typeof ENTRY_FILTERS)[number], string>>;

/** A Entry row: every field of the contract's Entry answer (timestamps as Dates), and the columns the core keeps to itself. */
export type EntryRow = RowOf<typeof Entry> & { organizationId: string };

/** A new entry as the service builds it: every column a create writes but the number (NEW_ENTRY_COLUMNS). */
export type NewEntry = Values<EntryRow> & {
  id: string;
  projectId: string;
  organizationId: string;
  creatorId: string | null;
};

/**
 * Every column of the entries table, named (so a prepared statement's result cannot change
 * under a migration): the fields an entry answers (ENTRY_FIELDS, which hold the read-only
 * columns too: id, entryNumber, creatorId, deploymentStage, timestamps) and the tenant column.
 * NEW_ENTRY_COLUMNS below checks it names every writable field.
 */
const ENTRY_COLUMNS = [...ENTRY_FIELDS, 'organizationId'] as const;
/** The columns a create writes (absent keys are written as NULL), besides the number the counter gives. */
const NEW_ENTRY_COLUMNS: readonly (typeof ENTRY_COLUMNS)[number][] = [
  ...ENTRY_WRITABLE_FIELDS,
  'id',
  'projectId',
  'organizationId',
  'creatorId',
];

/** Entries in Postgres: all SQL of the feature. */
export interface EntryStore {
  /** One page of a project's entries, with exact-match filters. */
  list(projectId: string, filter: EntryFilter, page: PageArgs): Promise<Page<EntryRow>>;
  /** An entry by id, in any organization (the service checks visibility); non-UUID ids find nothing. */
  find(id: string, opts?: { lock?: RowLock }): Promise<EntryRow | undefined>;
  /**
   * Creates an entry and commits `write` (its audit record and events) as ONE statement
   * (no transaction, one round trip): finds the project in the entry's organization,
   * locks it and bumps its counter, inserts the entry with that number, and writes the
   * audit record and events, all or nothing. Numbers are therefore gap-free, and a failed
   * create gives its number back. Undefined (nothing written) when the organization has
   * no such project.
   */
  create(entry: NewEntry, write: WriteRecord): Promise<EntryRow | undefined>;
  /** Updates columns; `statusChangedNow` also sets statusChangedAt to the transaction's time. */
  update(id: string, values: Values<EntryRow>, opts?: { statusChangedNow?: boolean }): Promise<EntryRow>;
  remove(id: string): Promise<void>;
  /** Whether `userId` is a user of the organization (the assignee check). */
  isOrganizationUser(organizationId: string, userId: string): Promise<boolean>;
}

/** The knex implementation of EntryStore. */
export function createEntryStore(db: Knex): EntryStore {
  return {
    list(projectId, filter, page) {
      // Named columns: paginate prepares the page's statement (a `*` it would not).
      const q = db<EntryRow>('entries').select(ENTRY_COLUMNS).where({ projectId });
      for (const f of ENTRY_FILTERS) if (filter[f] !== undefined) q.andWhere(f, filter[f]);
      return paginate<EntryRow>(q, page);
    },
    find(id, opts = {}) {
      return findRow(db<EntryRow>('entries'), id, opts.lock);
    },
    async create(entry, write) {
      // The counter: the project of the entry's organization, locked by the UPDATE until the statement ends.
      const counter = {
        sql: 'counter AS (UPDATE projects SET "entryCounter" = "entryCounter" + 1 WHERE id = ? AND "organizationId" = ? RETURNING "entryCounter")',
        bindings: [entry.projectId, entry.organizationId],
      };
      const insert = insertRowCte(WRITTEN, 'entries', entry, {
        columns: NEW_ENTRY_COLUMNS,
        returning: ENTRY_COLUMNS,
        from: 'counter',
        computed: { entryNumber: 'counter."entryCounter"' },
      });
      // Planning it cost Postgres a third of a millisecond per create (pg_stat_statements): a prepared statement.
      return commitWrite<EntryRow>(db, 'core', write, { ctes: [counter, insert], prepared: 'core-entry-create-v5' });
    },
    async update(id, values, opts = {}) {
      const [row] = await db<EntryRow>('entries')
        .where({ id })
        .update({
          ...jsonbValues(values, ENTRY_JSON_FIELDS),
          ...(opts.statusChangedNow ? { statusChangedAt: db.fn.now() } : {}),
          updatedAt: db.fn.now(),
        })
        .returning('*');
      return row;
    },
    async remove(id) {
      await db<EntryRow>('entries').where({ id }).del();
    },
    async isOrganizationUser(organizationId, userId) {
      return isUuid(userId) && Boolean(await db('users').where({ id: userId, organizationId }).first('id'));
    },
  };
}
