import type { Knex } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { type Actor, projectInScope, requireActor } from '../../lib/actor.ts';
import { toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';

const SNAPSHOT_COLUMNS = ['id', 'scopeType', 'scopeId', 'reportType', 'status', 'narrativeSource', 'summary', 'createdAt'] as const;

/** What leaves the core for a snapshot in a list: the spec's fields plus the generated `summary` text. */
export function presentSnapshot(row: Record<string, unknown>): JsonObject {
  return toJson(Object.fromEntries(SNAPSHOT_COLUMNS.map((c) => [c, row[c] ?? null])));
}

/** Report snapshots of a project. There is no get by id (spec): the list is the only read. */
export function createSnapshotService(db: Knex) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      await projectInScope(db, actor, projectId);
      return paginate(db('snapshots').select(SNAPSHOT_COLUMNS).where({ projectId }), page, pageSize, presentSnapshot);
    },
  };
}
