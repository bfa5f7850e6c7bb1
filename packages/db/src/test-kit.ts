import { pageOffset } from './pagination.ts';

/**
 * The in-memory twin of `paginate`, for the fake stores of unit tests: one page of rows
 * already filtered, in the same order (createdAt desc, id desc), with the true total, as
 * copies (a database read is: later writes must not change it). A row without a Date
 * createdAt sorts as the oldest; the fakes' inserts set one, as the column's default does.
 */
export function fakePage<T extends { id: string }>(
  rows: readonly T[],
  { page, pageSize }: { page: number; pageSize: number },
): { data: T[]; page: number; pageSize: number; total: number } {
  const sorted = [...rows].sort((a, b) => createdTime(b) - createdTime(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const offset = pageOffset(page, pageSize);
  return { data: sorted.slice(offset, offset + pageSize).map((r) => ({ ...r })), page, pageSize, total: rows.length };
}

function createdTime(row: object): number {
  return 'createdAt' in row && row.createdAt instanceof Date ? row.createdAt.getTime() : 0;
}
