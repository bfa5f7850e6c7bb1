import { randomUUID } from 'node:crypto';
import type { Page, PageArgs } from '@cluster/platform';
import type { ProjectFigures, SnapshotRow, SnapshotStore } from './store.ts';

/**
 * An in-memory SnapshotStore for unit tests of the rules (no Postgres). Reads
 * return copies; `figures` are what projectFigures answers, by project id.
 */
export function createFakeSnapshotStore(
  rows: SnapshotRow[] = [],
  figures: Map<string, ProjectFigures> = new Map(),
): SnapshotStore & { rows: SnapshotRow[]; figures: Map<string, ProjectFigures> } {
  return {
    rows,
    figures,
    async list(projectId, { page, pageSize }: PageArgs): Promise<Page<SnapshotRow>> {
      const all = rows.filter((r) => r.projectId === projectId);
      return {
        data: all.slice((page - 1) * pageSize, page * pageSize).map((r) => ({ ...r })),
        page,
        pageSize,
        total: all.length,
      };
    },
    async insert(values) {
      const row: SnapshotRow = { ...values, id: randomUUID(), createdAt: new Date() };
      rows.push(row);
      return { ...row };
    },
    async projectFigures(projectId) {
      const f = figures.get(projectId) ?? { entriesByStatus: [], releases: 0, released: 0, wikiPages: 0 };
      return { ...f, entriesByStatus: f.entriesByStatus.map((s) => ({ ...s })) };
    },
  };
}
