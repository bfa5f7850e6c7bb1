import { isUuid, type Knex } from '@cluster/db';

/** Row lock a store takes on a row it loads for a write: shared (children being added) or exclusive (updates). */
export type RowLock = 'share' | 'update';

/**
 * Loads a row of `table` by id (and `where`, e.g. its organization), locked for the
 * transaction with `lock`; a non-UUID id finds nothing (no query). The service then
 * checks tenant and scope (assertVisible). For stores only.
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
