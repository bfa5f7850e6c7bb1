import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { notFound } from '@cluster/platform';
import { type Actor, projectInScope, requireActor } from '../../lib/actor.ts';
import { toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';

const AGREEMENT_COLUMNS = ['id', 'projectId', 'title', 'status', 'signedAt', 'createdAt'] as const;

/** What leaves the core for an agreement (spec Agreement plus signedAt; never the signed document). */
export function presentAgreement(row: Record<string, unknown>): JsonObject {
  return toJson(Object.fromEntries(AGREEMENT_COLUMNS.map((c) => [c, row[c] ?? null])));
}

/** Agreements are read-only over the API; the admin CLI creates and signs them (admin.ts). */
export function createAgreementService(db: Knex) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      await projectInScope(db, actor, projectId);
      return paginate(db('agreements').select(AGREEMENT_COLUMNS).where({ projectId }), page, pageSize, presentAgreement);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      if (!isUuid(id)) throw notFound('agreement');
      const row = await db('agreements').where({ id, organizationId: actor.organizationId }).first();
      // A project key sees its project's agreements only (one without a project is organization-wide).
      if (!row || (actor.scope === 'project' && row.projectId !== actor.scopedProjectId)) throw notFound('agreement');
      return presentAgreement(row);
    },
  };
}
