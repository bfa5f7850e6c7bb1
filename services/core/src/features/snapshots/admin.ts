import { NARRATIVE_SOURCES, isOneOf } from '@cluster/contracts';
import { isUuid } from '@cluster/db';
import { systemWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { templateSummary } from './presenter.ts';

/** A CLI mistake the operator should read (the CLI prints it and exits 1). */
export class SnapshotAdminError extends Error {}

/** Flags of `admin snapshot create`. */
export interface SnapshotCreateArgs {
  projectId: string;
  reportType: string;
  narrativeSource?: string;
  summary?: string;
}

/**
 * `admin snapshot create` (docs/runbook.md, "Local operations"). Without `--summary` the narrative comes
 * from the template generator over the project's current figures (the spec's
 * fallback when no model is available), so narrativeSource is `template`.
 */
export function createSnapshotAdmin(stores: Stores) {
  return {
    async create(args: SnapshotCreateArgs): Promise<{ id: string }> {
      if (!args.reportType?.trim()) throw new SnapshotAdminError('--report-type is required');
      const { narrativeSource } = args;
      if (narrativeSource !== undefined && !isOneOf(NARRATIVE_SOURCES, narrativeSource)) {
        throw new SnapshotAdminError('--narrative-source must be ai or template');
      }
      if (!isUuid(args.projectId)) throw new SnapshotAdminError('unknown project');
      const reportType = args.reportType.trim();
      return stores.transaction(async (tx) => {
        const project = await tx.projects.findById(args.projectId);
        if (!project) throw new SnapshotAdminError('unknown project');
        const given = args.summary?.trim();
        const summary = given || templateSummary(project.name, reportType, await tx.snapshots.projectFigures(project.id));
        const row = await tx.snapshots.insert({
          organizationId: project.organizationId,
          projectId: project.id,
          scopeType: 'project',
          scopeId: project.id,
          reportType,
          status: 'ready',
          summary,
          narrativeSource: given ? (narrativeSource ?? null) : 'template',
        });
        await tx.record(
          systemWrite(project.organizationId, {
            entityType: 'snapshot',
            action: 'created',
            entityId: row.id,
            entityName: reportType,
            projectId: project.id,
          }),
        );
        return { id: row.id };
      });
    },
  };
}
