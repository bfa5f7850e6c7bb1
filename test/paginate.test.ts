import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, ensureDatabase, paginate, type Knex } from '@cluster/db';
import { dropDatabase, freshDatabaseUrl } from './support/cluster.ts';

// paginate runs a list's page and, unless the page is the list's last, its count as prepared statements
// (named after their SQL), except a page of `select *`, whose result a migration could change under a
// cached plan, and a query of a transaction, which must run on the transaction's connection.
const url = freshDatabaseUrl('paginate');
let db: Knex;

beforeAll(async () => {
  await ensureDatabase(url);
  db = createDb(url, { schema: 'public', poolMax: 1 });
  await db.schema.createTable('items', (t) => {
    t.uuid('id').primary();
    t.text('name').notNullable();
    t.text('kind').notNullable();
    t.timestamp('createdAt', { useTz: true }).notNullable();
  });
  const rows = Array.from({ length: 7 }, (_, i) => ({
    id: `00000000-0000-4000-8000-00000000000${i}`,
    name: `item ${i}`,
    kind: i % 2 ? 'odd' : 'even',
    createdAt: new Date(Date.UTC(2026, 0, 1 + i)),
  }));
  await db('items').insert(rows);
});
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(url);
});

const prepared = async () =>
  (await db.raw<{ rows: { name: string; statement: string }[] }>('select name, statement from pg_prepared_statements')).rows;

describe('paginate', () => {
  it('pages in order with the true total, as prepared statements when the columns are named', async () => {
    const page = await paginate<{ id: string; name: string }>(db('items').select('id', 'name').where({ kind: 'even' }), {
      page: 1,
      pageSize: 3,
    });
    expect(page).toMatchObject({ page: 1, pageSize: 3, total: 4 });
    expect(page.data.map((r) => r.name)).toEqual(['item 6', 'item 4', 'item 2']);
    const names = (await prepared()).filter((p) => p.name.startsWith('list-'));
    expect(names.map((p) => p.statement).join('\n')).toMatch(/count\(\*\)/);
    expect(names.map((p) => p.statement).join('\n')).toMatch(/select "id", "name" from "items"/);
    // The same list again reuses both statements; another filter is another statement.
    await paginate(db('items').select('id', 'name').where({ kind: 'odd' }), { page: 1, pageSize: 2 });
    expect((await prepared()).filter((p) => p.name.startsWith('list-'))).toHaveLength(names.length);
    await paginate(db('items').select('id', 'name').where({ kind: 'odd' }).andWhere('name', 'like', 'item%'), {
      page: 1,
      pageSize: 3,
    });
    expect((await prepared()).filter((p) => p.name.startsWith('list-')).length).toBeGreaterThan(names.length);
  });

  it('takes the total from the last page without counting, and counts for any other page', async () => {
    const list = () => db('items').select('id', 'name').where('name', '<>', 'none');
    const counts = async () => (await prepared()).filter((p) => /count\(\*\).*<>/.test(p.statement)).length;
    const at = (page: number, pageSize: number) => paginate<{ name: string }>(list(), { page, pageSize });
    // 7 rows: a page of all of them, exactly all of them, the partial last page: no count.
    expect(await at(1, 10)).toMatchObject({ total: 7, data: { length: 7 } });
    expect(await at(1, 7)).toMatchObject({ total: 7, data: { length: 7 } });
    const last = await at(3, 3);
    expect(last).toMatchObject({ total: 7, data: [{ name: 'item 0' }] });
    expect(await counts()).toBe(0);
    // A full page with more after it, and a page past the end: counted.
    expect(await at(2, 3)).toMatchObject({ total: 7, data: [{ name: 'item 3' }, { name: 'item 2' }, { name: 'item 1' }] });
    expect(await counts()).toBe(1);
    expect(await at(4, 3)).toMatchObject({ total: 7, data: [] });
    expect(await at(1, 6)).toMatchObject({ total: 7, data: { length: 6 } });
  });

  it('never prepares a page of every column, and a migration does not break it', async () => {
    const page = await paginate<Record<string, unknown>>(db('items'), { page: 1, pageSize: 2 });
    expect(page.total).toBe(7);
    expect(Object.keys(page.data[0]).sort()).toEqual(['createdAt', 'id', 'kind', 'name']);
    expect((await prepared()).some((p) => /select \* from "items"/.test(p.statement))).toBe(false);
    await db.schema.alterTable('items', (t) => t.text('extra'));
    const after = await paginate<Record<string, unknown>>(db('items'), { page: 1, pageSize: 2 });
    expect(Object.keys(after.data[0])).toContain('extra');
    // A prepared page of named columns keeps working after the migration.
    const named = await paginate<{ id: string }>(db('items').select('id', 'name').where({ kind: 'even' }), {
      page: 1,
      pageSize: 10,
    });
    expect(named.total).toBe(4);
  });

  it('runs in the transaction it was given', async () => {
    await db
      .transaction(async (trx) => {
        await trx('items').insert({
          id: '00000000-0000-4000-8000-0000000000ff',
          name: 'uncommitted',
          kind: 'even',
          createdAt: new Date(),
        });
        const page = await paginate<{ name: string }>(trx('items').select('id', 'name').where({ kind: 'even' }), {
          page: 1,
          pageSize: 10,
        });
        expect(page.total).toBe(5);
        expect(page.data[0].name).toBe('uncommitted');
        await trx.rollback();
      })
      .catch(() => {});
    expect((await paginate(db('items').select('id').where({ kind: 'even' }), { page: 1, pageSize: 10 })).total).toBe(4);
  });
});
