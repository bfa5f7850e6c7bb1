import { randomUUID } from 'node:crypto';
import { fakePage } from '@cluster/db/test-kit';
import type { Page, PageArgs } from '@cluster/platform';

let clock = 0;
/**
 * The fakes' one clock: strictly increasing (as Postgres' microsecond timestamps practically are) and
 * never behind the wall clock, so that "newest first" is deterministic in tests and a row written
 * later through any fake (a table, the shared links) is never older than one written before it.
 */
export function fakeNow(): Date {
  clock = Math.max(clock + 1, Date.now());
  return new Date(clock);
}

/**
 * An in-memory table for the fake stores of unit tests: rows get an id and
 * timestamps on insert, reads return copies (as a database read does: later
 * writes must not change them), and pages are `fakePage`'s (the order of `paginate`:
 * createdAt desc, id desc). `normalize` turns written values into what the
 * column would hold (e.g. timestamps as Dates); `rows` shares a table with other fakes;
 * `updatedAt: false` for a table without that column. `methods` are the same reads and
 * writes as a store's async methods, for the fakes whose store interface takes them as they are.
 */
export function createFakeTable<R extends { id: string }>(
  opts: {
    rows?: R[];
    defaults?: Record<string, unknown>;
    normalize?: (values: Record<string, unknown>) => Record<string, unknown>;
    updatedAt?: boolean;
  } = {},
) {
  const rows: R[] = opts.rows ?? [];
  const normalize = opts.normalize ?? ((v: Record<string, unknown>) => v);
  const now = fakeNow;
  const touched = (at: Date) => (opts.updatedAt === false ? {} : { updatedAt: at });
  const find = (id: string): R | undefined => {
    const row = rows.find((r) => r.id === id);
    return row && { ...row };
  };
  const insert = (values: Record<string, unknown>): R => {
    const at = now();
    const row = { id: randomUUID(), ...opts.defaults, ...normalize(values), createdAt: at, ...touched(at) } as unknown as R;
    rows.push(row);
    return { ...row };
  };
  const update = (id: string, values: Record<string, unknown>): R => {
    const row = rows.find((r) => r.id === id);
    if (!row) throw new Error(`fake: no row ${id}`);
    Object.assign(row, normalize(values), touched(now()));
    return { ...row };
  };
  const remove = (id: string): void => {
    const i = rows.findIndex((r) => r.id === id);
    if (i >= 0) rows.splice(i, 1);
  };
  return {
    rows,
    find,
    insert,
    update,
    remove,
    page(where: (row: R) => boolean, page: PageArgs): Page<R> {
      return fakePage(rows.filter(where), page);
    },
    methods: {
      find: async (id: string) => find(id),
      insert: async (values: Record<string, unknown>) => insert(values),
      update: async (id: string, values: Record<string, unknown>) => update(id, values),
      remove: async (id: string) => remove(id),
    },
  };
}
