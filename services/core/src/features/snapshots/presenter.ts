import type { JsonObject } from '@bufbuild/protobuf';
import { SNAPSHOT_FIELDS } from '@cluster/contracts';
import { presentFields } from '../../shared/present.ts';
import type { ProjectFigures, SnapshotRow } from './store.ts';

/** What leaves the core for a snapshot in a list: the spec's fields plus the generated `summary` text. */
export function presentSnapshot(row: SnapshotRow): JsonObject {
  return presentFields(row, SNAPSHOT_FIELDS);
}

/** The template narrative of a report: the project's entries by status, releases and wiki pages (pure). */
export function templateSummary(projectName: string, reportType: string, f: ProjectFigures): string {
  const entries = f.entriesByStatus.reduce((sum, r) => sum + r.count, 0);
  const statuses = f.entriesByStatus.map((r) => `${r.count} ${r.status.replace(/_/g, ' ')}`).join(', ');
  return [
    `${reportType} report for ${projectName}:`,
    `${entries} ${entries === 1 ? 'entry' : 'entries'}${statuses ? ` (${statuses})` : ''};`,
    `${f.releases} release${f.releases === 1 ? '' : 's'} (${f.released} released);`,
    `${f.wikiPages} wiki page${f.wikiPages === 1 ? '' : 's'}.`,
  ].join(' ');
}
