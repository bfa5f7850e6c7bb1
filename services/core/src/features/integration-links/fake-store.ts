import { INTEGRATION_LINK_FILTERS } from '@cluster/contracts';
import { fakeExternalLinkMethods } from '../../shared/fake-external-links.ts';
import { createFakeTable } from '../../shared/fake-table.ts';
import type { AlignEntityType, IntegrationLinkRow, IntegrationLinkStore } from './store.ts';

/** A record a fake link may point at (the rows of other tables, as findAlignTarget sees them). */
export interface FakeAlignTarget {
  type: AlignEntityType;
  id: string;
  organizationId: string;
  projectId: string | null;
}

/**
 * An in-memory IntegrationLinkStore for unit tests of the rules, over `rows` (the
 * links table the fakes of externalRef features share). `targets` stands for the
 * linkable records of other tables: add to it what a test links to.
 */
export function createFakeIntegrationLinkStore(
  rows: IntegrationLinkRow[] = [],
): IntegrationLinkStore & { rows: IntegrationLinkRow[]; targets: FakeAlignTarget[] } {
  const table = createFakeTable<IntegrationLinkRow>({ rows, defaults: { projectId: null } });
  const targets: FakeAlignTarget[] = [];
  return {
    ...fakeExternalLinkMethods(rows),
    rows,
    targets,
    async list(organizationId, filter, page) {
      return table.page(
        (r) =>
          r.organizationId === organizationId &&
          (!filter.projectId || r.projectId === filter.projectId) &&
          INTEGRATION_LINK_FILTERS.every((f) => filter[f] === undefined || r[f] === filter[f]),
        page,
      );
    },
    find: table.methods.find,
    update: table.methods.update,
    remove: table.methods.remove,
    async findAlignTarget(organizationId, type, id) {
      const t = targets.find((x) => x.type === type && x.id === id && x.organizationId === organizationId);
      return t && { projectId: t.projectId };
    },
  };
}
