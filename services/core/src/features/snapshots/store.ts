import type { Snapshot, RowOf } from '@cluster/contracts';
import type { Knex } from '@cluster/db';
import { paginate } from '@cluster/db';
import type { Page, PageArgs } from '@cluster/platform';

/** A Snapshot row: every field of the contract's Snapshot answer (timestamps as Dates), and the columns the core keeps to itself. */
export type SnapshotRow = RowOf<typeof Snapshot> & { organizationId: string; projectId: string | null };

/** A project's current figures, from which the template narrative is written. */
export interface ProjectFigures {
  /** Entries per status, by status name. */
  entriesByStatus: { status: string; count: number }[];
  releases: number;
  released: number;
  wikiPages: number;
}

/** Report snapshots in Postgres: all SQL of the feature (read over the API, written by the admin CLI). */
export interface SnapshotStore {
  /** One page of a project's snapshots. */
  list(projectId: string, page: PageArgs): Promise<Page<SnapshotRow>>;
  insert(
    values: Pick<SnapshotRow, 'organizationId' | 'scopeType' | 'scopeId' | 'reportType' | 'status' | 'narrativeSource'> & {
      projectId: string;
      summary: string;
    },
  ): Promise<SnapshotRow>;
  /** The figures of a project as of now (entries by status, releases, wiki pages). */
  projectFigures(projectId: string): Promise<ProjectFigures>;
}

/** The knex implementation of SnapshotStore. */
export function createSnapshotStore(db: Knex): SnapshotStore {
  return {
    list(projectId, page) {
      return paginate<SnapshotRow>(db<SnapshotRow>('snapshots').where({ projectId }), page);
    },
    async insert(values) {
      const [row] = await db<SnapshotRow>('snapshots').insert(values).returning('*');
      return row;
    },
    async projectFigures(projectId) {
      const count = async (table: string, where: Record<string, string> = {}) =>
        Number(
          (
            await db(table)
              .where({ projectId, ...where })
              .count({ n: '*' })
              .first()
          )?.n ?? 0,
        );
      const byStatus = (await db('entries')
        .where({ projectId })
        .select('status')
        .count({ n: '*' })
        .groupBy('status')
        .orderBy('status')) as { status: string; n: number | string }[];
      return {
        entriesByStatus: byStatus.map((r) => ({ status: r.status, count: Number(r.n) })),
        releases: await count('releases'),
        released: await count('releases', { status: 'released' }),
        wikiPages: await count('wiki_pages'),
      };
    },
  };
}
