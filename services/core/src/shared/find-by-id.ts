import { isUuid, type Knex } from '@cluster/db';

/** Row lock a store takes on a row it loads for a write: shared (children being added) or exclusive (updates). */
export type RowLock = 'share' | 'update';

/**
 * Loads the row with `id` of a typed query (`db<EntryRow>('entries')`, narrowed with any other
 * filter, e.g. its organization), locked for the transaction with `lock`; a non-UUID id finds
 * nothing (no query). The service then checks tenant and scope (assertVisible). For stores only.
 */
export async function findRow<T extends { id: string }>(
  query: Knex.QueryBuilder<T>,
  id: string,
  lock?: RowLock,
): Promise<T | undefined> {
  if (!isUuid(id)) return undefined;
  const q = query.where('id', id).first();
  if (lock === 'update') q.forUpdate();
  if (lock === 'share') q.forShare();
  // knex cannot resolve `first()` of a builder generic in T: the row is the query's row type.
  return (await q) as T | undefined;
}

/**
 * findRow over an untyped table, its row asserted to be `T`.
 * @deprecated Only the api-keys store still calls it (being restructured elsewhere): use findRow with a typed query.
 */
export async function findById<T>(
  db: Knex,
  table: string,
  id: string,
  lock?: RowLock,
  where: Record<string, string> = {},
): Promise<T | undefined> {
  if (!isUuid(id)) return undefined;
  const q = db(table)
    .where({ ...where, id })
    .first();
  if (lock === 'update') q.forUpdate();
  if (lock === 'share') q.forShare();
  return (await q) as T | undefined;
}
