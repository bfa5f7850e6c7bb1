import type { Stores } from '../../stores.ts';
import { createTimeEntryCrud } from './crud.ts';
import { createEntryCostSummary } from './entry-cost-summary.ts';
import { createTimeEntrySync } from './sync.ts';
import { createTimeSummary } from './time-summary.ts';
import { createTimeEntryTransitions } from './transitions.ts';

/**
 * TimeEntryService's rules, one module a job: CRUD (crud.ts), the approval moves
 * (transitions.ts over state-machine.ts), external sync (sync.ts), the time summary
 * (time-summary.ts) and the entries' cost summary (entry-cost-summary.ts). Every write
 * runs in one transaction that ends with its audit record and its time.* events
 * (Stores.record). Rules only; SQL is in the store.
 */
export function createTimeEntryService(stores: Stores) {
  return {
    ...createTimeEntryCrud(stores),
    ...createTimeEntryTransitions(stores),
    ...createTimeEntrySync(stores),
    ...createTimeSummary(stores),
    ...createEntryCostSummary(stores),
  };
}
