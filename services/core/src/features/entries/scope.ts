import type { Actor } from '@cluster/proto';
import { assertVisible } from '../../shared/access.ts';
import type { RowLock } from '../../shared/find-by-id.ts';
import type { EntryRow, EntryStore } from './store.ts';

/**
 * Loads an entry the actor addresses by id (`/entries/:id`, and the comments and
 * attachments under it): not a UUID, missing, another organization's or, for a
 * project key, another project's is 404. `lock` locks it for the transaction.
 */
export async function visibleEntry(
  entries: Pick<EntryStore, 'find'>,
  actor: Actor,
  id: string,
  lock?: RowLock,
): Promise<EntryRow> {
  return assertVisible(actor, await entries.find(id, { lock }), 'entry');
}
