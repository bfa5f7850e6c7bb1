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
 * An in-memory IntegrationLinkStore for unit tests of the rules. `targets` stands
 * for the linkable records of other tables: add to it what a test links to.
 */
export function createFakeIntegrationLinkStore(): IntegrationLinkStore & { rows: IntegrationLinkRow[]; targets: FakeAlignTarget[]; locked: string[] } {
  const table = createFakeTable<IntegrationLinkRow>({ defaults: { projectId: null } });
  const targets: FakeAlignTarget[] = [];
  const locked: string[] = [];
  const byRef = (organizationId: string, ref: { provider?: unknown; externalType?: unknown; externalId?: unknown }) =>
    table.rows.find(
      (r) => r.organizationId === organizationId && r.provider === ref.provider && r.externalType === ref.externalType && r.externalId === ref.externalId,
    );
  return {
    rows: table.rows,
    targets,
    locked,
    async list(organizationId, filter, page) {
      return table.page(
        (r) =>
          r.organizationId === organizationId &&
          (!filter.projectId || r.projectId === filter.projectId) &&
          (['provider', 'externalType', 'externalId', 'alignEntityType', 'alignEntityId'] as const).every((f) => filter[f] === undefined || r[f] === filter[f]),
        page,
      );
    },
    async find(id) {
      return table.find(id);
    },
    async findByRef(organizationId, ref) {
      const row = byRef(organizationId, ref);
      return row && { ...row };
    },
    async lockRef(organizationId, ref) {
      locked.push(`${organizationId}|${ref.provider}|${ref.externalType}|${ref.externalId}`);
      const row = byRef(organizationId, ref);
      return row && { ...row };
    },
    async insertIfAbsent(values) {
      if (byRef(String(values.organizationId), values)) return undefined;
      return table.insert(values);
    },
    async update(id, values) {
      return table.update(id, values);
    },
    async remove(id) {
      table.remove(id);
    },
    async findAlignTarget(organizationId, type, id) {
      const t = targets.find((x) => x.type === type && x.id === id && x.organizationId === organizationId);
      return t && { projectId: t.projectId };
    },
  };
}
