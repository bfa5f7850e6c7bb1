import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import { notFound } from '@cluster/platform';
import { type Actor, assertVisible } from '../../lib/actor.ts';

/** Row lock taken on the loaded row: none, shared (children being added) or exclusive (updates). */
export type RowLock = 'none' | 'share' | 'update';

/**
 * Loads a row addressed by id (`/entries/:id`, `/comments/:id`, ...). Not a UUID,
 * missing, another organization's or, for a project key, another project's: 404.
 */
export async function loadVisible(
  db: Knex, actor: Actor, table: string, id: string, what: string, lock: RowLock = 'none',
): Promise<Record<string, unknown>> {
  if (!isUuid(id)) throw notFound(what);
  const q = db(table).where({ id }).first();
  if (lock === 'update') q.forUpdate();
  if (lock === 'share') q.forShare();
  const row = (await q) as Record<string, unknown> | undefined;
  assertVisible(actor, row, what);
  return row as Record<string, unknown>;
}

/** An entry the actor may see, by id (comments and attachments hang off it). */
export function loadVisibleEntry(db: Knex, actor: Actor, id: string, lock: RowLock = 'none') {
  return loadVisible(db, actor, 'entries', id, 'entry', lock);
}
