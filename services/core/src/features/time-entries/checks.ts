import { notFound, validation } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { assertVisible } from '../../shared/access.ts';
import type { Stores } from '../../stores.ts';
import { parseWorkDate, type Problem } from './duration.ts';
import type { TimeEntryRow } from './store.ts';

/**
 * The checks a time entry request makes against the stores before it writes, shared by
 * CRUD, the transitions and sync: the entry is visible, the work items it names belong to
 * its project, its user to the key's organization, and a date range is well formed.
 */

/** A time entry by id: 404 when unknown, of another organization, or outside a project key's project. */
export async function loadTimeEntry(tx: Stores, actor: Actor, id: string, lock = false): Promise<TimeEntryRow> {
  return assertVisible(actor, await tx.timeEntries.find(id, { lock }), 'time entry');
}

/** `entryId` and `releaseId` must name a work item of the same project (a problem, 400, otherwise). */
export async function checkWorkItems(
  tx: Stores,
  projectId: string,
  body: { entryId?: unknown; releaseId?: unknown },
  problems: Problem[],
): Promise<void> {
  for (const [field, kind] of [
    ['entryId', 'entry'],
    ['releaseId', 'release'],
  ] as const) {
    const v = body[field];
    if (v === undefined || v === null) continue;
    const found = typeof v === 'string' && (await tx.timeEntries.hasWorkItem(kind, v, projectId));
    if (!found)
      problems.push({
        path: `/${field}`,
        message: `must be ${field === 'entryId' ? 'an entry' : 'a release'} of this project`,
      });
  }
}

/** `userId` must be a user of the key's organization (404 otherwise). */
export async function checkUser(stores: Stores, actor: Actor, userId: unknown): Promise<void> {
  const found = typeof userId === 'string' && (await stores.users.find(actor.organizationId, userId));
  if (!found) throw notFound('user');
}

/** The workDate range (inclusive) of a list or summary query: `from` and `to`, each a date YYYY-MM-DD (400 otherwise). */
export function dateRange(filters: Record<string, unknown>): { from?: string; to?: string } {
  const range: { from?: string; to?: string } = {};
  for (const f of ['from', 'to'] as const) {
    const v = filters[f];
    if (v === undefined) continue;
    const date = parseWorkDate(typeof v === 'string' ? v : ''); // the gateway's query schema makes it a string
    if (!date) throw validation([{ path: f, message: 'must be a date YYYY-MM-DD' }]);
    range[f] = date;
  }
  return range;
}
