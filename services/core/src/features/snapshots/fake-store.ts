import { createFakeTable } from '../../shared/fake-table.ts';
import type { ProjectFigures, SnapshotRow, SnapshotStore } from './store.ts';

/**
 * An in-memory SnapshotStore for unit tests of the rules (no Postgres). Reads
 * return copies; `figures` are what projectFigures answers, by project id.
 */
export function createFakeSnapshotStore(
  rows: SnapshotRow[] = [],
  figures: Map<string, ProjectFigures> = new Map(),
): SnapshotStore & { rows: SnapshotRow[]; figures: Map<string, ProjectFigures> } {
  const table = createFakeTable<SnapshotRow>({ rows, updatedAt: false });
  return {
    rows,
    figures,
    async list(projectId, page) {
      return table.page((r) => r.projectId === projectId, page);
    },
    insert: table.methods.insert,
    async projectFigures(projectId) {
      const f = figures.get(projectId) ?? { entriesByStatus: [], releases: 0, released: 0, wikiPages: 0 };
      return { ...f, entriesByStatus: f.entriesByStatus.map((s) => ({ ...s })) };
    },
  };
}
