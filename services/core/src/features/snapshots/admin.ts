import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import { systemAudit } from '../../lib/system-audit.ts';

/** A CLI mistake the operator should read (the CLI prints it and exits 1). */
export class SnapshotAdminError extends Error {}

/** Narrative sources of the spec's Snapshot. */
export const NARRATIVE_SOURCES = ['ai', 'template'] as const;

/** Flags of `admin snapshot create`. */
export interface SnapshotCreateArgs {
  projectId: string;
  reportType: string;
  narrativeSource?: string;
  summary?: string;
}

/**
 * `admin snapshot create` (contract.md). Without `--summary` the narrative comes
 * from the template generator over the project's current figures (the spec's
 * fallback when no model is available), so narrativeSource is `template`.
 */
export function createSnapshotAdmin(db: Knex) {
  return {
    async create(args: SnapshotCreateArgs): Promise<{ id: string }> {
      if (!args.reportType?.trim()) throw new SnapshotAdminError('--report-type is required');
      if (args.narrativeSource !== undefined && !(NARRATIVE_SOURCES as readonly string[]).includes(args.narrativeSource)) {
        throw new SnapshotAdminError('--narrative-source must be ai or template');
      }
      if (!isUuid(args.projectId)) throw new SnapshotAdminError('unknown project');
      return db.transaction(async (trx) => {
        const project = await trx('projects').where({ id: args.projectId }).first('id', 'organizationId', 'name');
        if (!project) throw new SnapshotAdminError('unknown project');
        const given = args.summary?.trim();
        const summary = given || (await templateSummary(trx, project, args.reportType.trim()));
        const [row] = await trx('snapshots')
          .insert({
            organizationId: project.organizationId, projectId: project.id, scopeType: 'project', scopeId: project.id,
            reportType: args.reportType.trim(), status: 'ready', summary,
            narrativeSource: given ? (args.narrativeSource ?? null) : 'template',
          })
          .returning('id');
        await systemAudit(trx, {
          organizationId: project.organizationId, projectId: project.id, entityType: 'snapshot', action: 'created', entityId: row.id,
          entityName: args.reportType.trim(),
        });
        return { id: row.id as string };
      });
    },
  };
}

/** The template narrative: the project's entries by status, releases and wiki pages, as of now. */
export async function templateSummary(db: Knex, project: { id: string; name: string }, reportType: string): Promise<string> {
  const count = async (table: string, where: Record<string, string> = {}) =>
    Number((await db(table).where({ projectId: project.id, ...where }).count({ n: '*' }).first())?.n ?? 0);
  const byStatus = (await db('entries')
    .where({ projectId: project.id }).select('status').count({ n: '*' }).groupBy('status').orderBy('status')) as { status: string; n: number | string }[];
  const entries = byStatus.reduce((sum, r) => sum + Number(r.n), 0);
  const statuses = byStatus.map((r) => `${Number(r.n)} ${String(r.status).replace(/_/g, ' ')}`).join(', ');
  const releases = await count('releases');
  const released = await count('releases', { status: 'released' });
  const pages = await count('wiki_pages');
  return [
    `${reportType} report for ${project.name}:`,
    `${entries} ${entries === 1 ? 'entry' : 'entries'}${statuses ? ` (${statuses})` : ''};`,
    `${releases} release${releases === 1 ? '' : 's'} (${released} released);`,
    `${pages} wiki page${pages === 1 ? '' : 's'}.`,
  ].join(' ');
}
