import { RELEASE_FILTERS } from '@cluster/contracts';
import { createFakeTable } from '../../shared/fake-table.ts';
import type { ReleaseRow, ReleaseStore } from './store.ts';

const TIMESTAMPS = ['startDate', 'endDate', 'releasedAt', 'costUpdatedAt'];

/** Written values as the columns hold them: timestamps as Dates. */
function normalize(values: Record<string, unknown>): Record<string, unknown> {
  const out = { ...values };
  for (const c of TIMESTAMPS) if (typeof out[c] === 'string') out[c] = new Date(out[c]);
  return out;
}

/** An in-memory ReleaseStore for unit tests of the rules (no Postgres). */
export function createFakeReleaseStore(): ReleaseStore & { rows: ReleaseRow[] } {
  const table = createFakeTable<ReleaseRow>({ defaults: { releasedAt: null, releasedEventSent: false }, normalize });
  const releasedAt = (opts: { releasedNow?: boolean }) => (opts.releasedNow ? { releasedAt: new Date() } : {});
  return {
    rows: table.rows,
    async list(projectId, filter, page) {
      return table.page(
        (r) => r.projectId === projectId && RELEASE_FILTERS.every((f) => filter[f] === undefined || r[f] === filter[f]),
        page,
      );
    },
    find: table.methods.find,
    async insert(values, opts = {}) {
      return table.insert({ ...values, ...releasedAt(opts) });
    },
    async update(id, values, opts = {}) {
      return table.update(id, { ...values, ...releasedAt(opts) });
    },
    remove: table.methods.remove,
  };
}
