import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { runOnPool } from './prepared.ts';

/** Page arithmetic shared by every list. */
export function pageOffset(page: number, pageSize: number): number {
  return (page - 1) * pageSize;
}

/** Names of the list statements paginate has prepared, by their SQL text. */
const listStatementNames = new Map<string, string>();

/** A select of every column (`*`, `t.*`): its result would change with a migration, so it is never prepared. */
const SELECTS_ALL = /^select (?:[\w".]*\.)?\*|, (?:[\w".]*\.)?\* /;

/**
 * Runs a list's statement on the pool without knex's runner, compiled once. A count, or a select
 * that names its columns, runs as a named prepared statement, named after its SQL text (another
 * filter is another text, so another statement): Postgres plans it once per connection instead of
 * on every call (the rules of `prepared`). A select of `*` runs unnamed. A query of a transaction
 * goes through knex, on the transaction's connection.
 */
async function runListStatement<T>(query: Knex.QueryBuilder): Promise<T[]> {
  const client = query.client as Knex.Client & { transacting?: boolean };
  if (client.transacting) return (await query) as T[];
  const { sql, bindings } = query.toSQL().toNative();
  if (SELECTS_ALL.test(sql)) return runOnPool<T>(client, { text: sql }, bindings);
  let name = listStatementNames.get(sql);
  if (!name) {
    if (listStatementNames.size >= 10_000) listStatementNames.clear();
    name = `list-${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    listStatementNames.set(sql, name);
  }
  return runOnPool<T>(client, { name, text: sql }, bindings);
}

/**
 * Runs a list query in the order of docs/decisions-api.md (createdAt desc, id desc) and
 * returns one page of its rows with the true total: from the page itself when it is the
 * list's last, else from a count (the select of `query` cleared). Both statements are
 * prepared (`runListStatement`), the page only when the query names its columns. For stores only.
 */
export async function paginate<T = Record<string, unknown>>(
  query: Knex.QueryBuilder,
  { page, pageSize }: { page: number; pageSize: number },
): Promise<{ data: T[]; page: number; pageSize: number; total: number }> {
  const offset = pageOffset(page, pageSize);
  // One row more than the page: when it does not come, this page is the list's last, and its total is
  // known without counting (every list that fits in a page, and the last page of any list).
  const rows = await runListStatement<T>(
    query
      .clone()
      .orderBy([
        { column: 'createdAt', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(pageSize + 1)
      .offset(offset),
  );
  if (rows.length <= pageSize && (rows.length > 0 || offset === 0)) {
    return { data: rows, page, pageSize, total: offset + rows.length };
  }
  const [{ count }] = await runListStatement<{ count: string }>(query.clone().clearSelect().clearOrder().count({ count: '*' }));
  return { data: rows.slice(0, pageSize), page, pageSize, total: Number(count) };
}
