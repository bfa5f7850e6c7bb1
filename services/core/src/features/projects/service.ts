import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { notFound } from '@cluster/platform';
import { type Actor, projectInScope, requireActor, visibleProjectId } from '../../lib/actor.ts';
import { changedFields, pickColumns, toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';
import { recordWrite } from '../../outbox/record.ts';

/** Every writable project column (the spec's create body, plus clientId on update). */
export const PROJECT_FIELDS = [
  'name', 'description', 'status', 'clientId',
  'logoUrl', 'wikiContent', 'chatWebhookUrl', 'devUrl', 'prodUrl', 'hostingAppUrl', 'hostingWorkspaceId',
  'hostingBoardId', 'hostingInstanceId', 'hostingAppName', 'lastAiStatusUpdate', 'committedCostLockedAt',
  'customLinks',
  'requireCascadeApproval', 'codehostCommentSyncEnabled', 'codehostAutoStatusEnabled', 'codehostAdvancedEnabled',
  'enforceDependencyBlocking', 'autoStatusOnUnblock', 'requireAutoStatusApproval', 'ciRequired',
  'commitScorerEnabled', 'flakyOverridesEnabled', 'codehostAiSuggesterEnabled', 'codehostAiRiskEnabled',
  'releaseNotesAiEnabled', 'statusUpdateAiEnabled', 'prDescriptionAiEnabled', 'reviewerSuggesterAiEnabled',
  'commitLinterAiEnabled', 'timeBillingEnabled',
  'invoicingMode', 'codehostAutoStatusTarget', 'autoStatusTargetStatus', 'ciCheckRunName', 'autoLinkThreshold',
  'suggestThreshold', 'scorerRecencyDays',
] as const;
const JSON_FIELDS = ['customLinks'];

/** What leaves the core for a project: every field of the spec's bodies. */
export function presentProject(row: Record<string, unknown>): JsonObject {
  return toJson(row, ['entryCounter', 'searchVector']);
}

function eventPayload(row: Record<string, unknown>) {
  return { projectId: row.id, name: row.name, status: row.status, organizationId: row.organizationId };
}

export function createProjectService(db: Knex) {
  return {
    async list(actorIn: Actor | undefined, filters: Record<string, unknown>, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      const q = db('projects').where({ organizationId: actor.organizationId });
      const scoped = visibleProjectId(actor);
      if (scoped) q.andWhere({ id: scoped });
      if (typeof filters.status === 'string') q.andWhere({ status: filters.status });
      return paginate(q, page, pageSize, presentProject);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      const row = await load(actor, id);
      return presentProject(row);
    },

    async create(actorIn: Actor | undefined, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const values = pickColumns(body, PROJECT_FIELDS, JSON_FIELDS);
        delete values.clientId;
        const [row] = await trx('projects')
          .insert({ ...values, organizationId: actor.organizationId, clientId: actor.organizationId })
          .returning('*');
        await recordWrite(
          trx, actor,
          { entityType: 'project', action: 'created', entityId: row.id, entityName: row.name, projectId: row.id },
          [{ eventName: 'project.created', entityType: 'project', entityId: row.id, projectId: row.id, payload: eventPayload(row) }],
        );
        return presentProject(row);
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const before = await load(actor, id, trx, true);
        const values = pickColumns(body, PROJECT_FIELDS, JSON_FIELDS);
        const [row] = Object.keys(values).length
          ? await trx('projects').where({ id }).update({ ...values, updatedAt: trx.fn.now() }).returning('*')
          : [before];
        const changed = changedFields(before, row, PROJECT_FIELDS);
        await recordWrite(
          trx, actor,
          { entityType: 'project', action: 'updated', entityId: id, entityName: row.name, projectId: id, metadata: { changedFields: changed } },
          changed.length
            ? [{ eventName: 'project.updated', entityType: 'project', entityId: id, projectId: id, payload: { ...eventPayload(row), changedFields: changed } }]
            : [],
        );
        return presentProject(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await db.transaction(async (trx) => {
        const row = await load(actor, id, trx, true);
        await trx('projects').where({ id }).del();
        await recordWrite(
          trx, actor,
          { entityType: 'project', action: 'deleted', entityId: id, entityName: row.name as string, projectId: id },
          [{ eventName: 'project.deleted', entityType: 'project', entityId: id, projectId: id, payload: eventPayload(row) }],
        );
      });
    },
  };

  /** A project by id: 404 outside the organization, 403 scope_violation for a project key on another project. */
  async function load(actor: Actor, id: string, trx: Knex = db, lock = false) {
    if (!isUuid(id)) throw notFound('project');
    const row = await projectInScope(trx, actor, id);
    if (lock) await trx('projects').where({ id }).forUpdate().first();
    return row;
  }
}
