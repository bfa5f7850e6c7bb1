import { pageOffset, type Knex } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';

/**
 * Runs a list query with the order of api-decisions.md (createdAt desc, id desc)
 * and returns one page of rows with the true total. For stores only.
 */
export async function paginate<T = Record<string, unknown>>(query: Knex.QueryBuilder, { page, pageSize }: PageArgs): Promise<Page<T>> {
  const [{ count }] = await query.clone().clearSelect().clearOrder().count({ count: '*' });
  const rows = await query
    .clone()
    .orderBy([
      { column: 'createdAt', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(pageSize)
    .offset(pageOffset(page, pageSize));
  return { data: rows as T[], page, pageSize, total: Number(count) };
}

/** A page with its rows presented. */
export function presentPage<R, T>(p: Page<R>, present: (row: R) => T): Page<T> {
  return { ...p, data: p.data.map(present) };
}

/** Stringifies the jsonb columns of a row about to be written with knex (knex sends objects as text[] otherwise). */
export function jsonbValues(values: Record<string, unknown>, jsonColumns: readonly string[]): Record<string, unknown> {
  const out = { ...values };
  for (const c of jsonColumns) if (out[c] !== null && out[c] !== undefined) out[c] = JSON.stringify(out[c]);
  return out;
}
