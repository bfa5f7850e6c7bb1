import type { Knex } from '@cluster/db';
import { pageOffset } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';

export interface Page<T> {
  data: T[];
  page: number;
  pageSize: number;
  total: number;
}

/**
 * Runs a list query with the order of api-decisions.md (createdAt desc, id desc)
 * and returns one page with the true total.
 */
export async function paginate<T>(
  query: Knex.QueryBuilder,
  page: number,
  pageSize: number,
  present: (row: Record<string, unknown>) => T,
): Promise<Page<T>> {
  const [{ count }] = await query.clone().clearSelect().clearOrder().count({ count: '*' });
  const rows = await query
    .clone()
    .orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(pageSize)
    .offset(pageOffset(page, pageSize));
  return { data: rows.map(present), page, pageSize, total: Number(count) };
}

/** Normalises page arguments from an RPC (the gateway has validated them). */
export function pageArgs(req: { page: number; pageSize: number }): { page: number; pageSize: number } {
  return { page: req.page > 0 ? req.page : 1, pageSize: req.pageSize > 0 ? Math.min(req.pageSize, 100) : 25 };
}

/** Converts a page to the RPC list response. */
export function toListResponse(p: Page<JsonObject>) {
  return { data: p.data, page: p.page, pageSize: p.pageSize, total: p.total };
}
