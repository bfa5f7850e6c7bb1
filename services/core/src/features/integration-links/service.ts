import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { conflict, validation } from '@cluster/platform';
import { type Actor, requireActor, visibleProjectId, visibleRows } from '../../lib/actor.ts';
import { changedFields, pickColumns, toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';
import { recordWrite } from '../../outbox/record.ts';
import { loadVisible } from '../entries/lookup.ts';
import { integrationLinkPayload } from '../../lib/external-ref.ts';

/**
 * Internal entities a link may point at: their table and the column holding their
 * project (null: organization-level, such as users). Features of other branches
 * (time_entry, wiki_page, agreement, ...) add their line here.
 */
export const ALIGN_TARGETS: Record<string, { table: string; projectColumn: string | null }> = {
  project: { table: 'projects', projectColumn: 'id' },
  entry: { table: 'entries', projectColumn: 'projectId' },
  release: { table: 'releases', projectColumn: 'projectId' },
  comment: { table: 'comments', projectColumn: 'projectId' },
  attachment: { table: 'attachments', projectColumn: 'projectId' },
  user: { table: 'users', projectColumn: null },
  time_entry: { table: 'time_entries', projectColumn: 'projectId' },
  wiki_page: { table: 'wiki_pages', projectColumn: 'projectId' },
  agreement: { table: 'agreements', projectColumn: 'projectId' },
};

const LINK_FIELDS = ['provider', 'externalType', 'externalId', 'alignEntityType', 'alignEntityId'] as const;
const FILTERS = ['provider', 'externalType', 'externalId', 'alignEntityType', 'alignEntityId'] as const;

/** What leaves the core for an integration link: the spec's fields plus updatedAt. */
export function presentLink(row: Record<string, unknown>): JsonObject {
  return toJson(row, ['projectId']);
}


/**
 * Resolves the linked internal record: it must exist in the actor's organization
 * and, for a project key, belong to its project. Returns the project it belongs to.
 */
async function resolveTarget(trx: Knex, actor: Actor, type: unknown, id: unknown): Promise<string | null> {
  const target = typeof type === 'string' ? ALIGN_TARGETS[type] : undefined;
  if (!target) {
    throw validation([{ path: '/alignEntityType', message: `must be one of: ${Object.keys(ALIGN_TARGETS).join(', ')}` }]);
  }
  const row = isUuid(id)
    ? ((await trx(target.table).where({ id, organizationId: actor.organizationId }).first()) as Record<string, unknown> | undefined)
    : undefined;
  const projectId = row && target.projectColumn ? (row[target.projectColumn] as string) : null;
  const scoped = visibleProjectId(actor);
  if (!row || (scoped && projectId !== scoped)) {
    throw validation([{ path: '/alignEntityId', message: `must be the id of a ${type} visible to this key` }]);
  }
  return projectId;
}

/**
 * Integration links: bind an external record (provider, externalType, externalId)
 * to an internal one. Create is idempotent on the external triple per organization.
 */
export function createIntegrationLinkService(db: Knex) {
  const load = (trx: Knex, actor: Actor, id: string, lock: 'none' | 'update' = 'none') =>
    loadVisible(trx, actor, 'integration_links', id, 'integration link', lock);

  return {
    async list(actorIn: Actor | undefined, filters: Record<string, unknown>, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      const { query: q } = await visibleRows(db, 'integration_links', actor);
      for (const f of FILTERS) if (typeof filters[f] === 'string') q.andWhere(f, filters[f] as string);
      return paginate(q, page, pageSize, presentLink);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentLink(await load(db, actor, id));
    },

    /** 201 with a new link; 200 with the existing one when the external triple is known. */
    async create(actorIn: Actor | undefined, body: Record<string, unknown>): Promise<{ resource: JsonObject; created: boolean }> {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const values = pickColumns(body, LINK_FIELDS);
        const projectId = await resolveTarget(trx, actor, values.alignEntityType, values.alignEntityId);
        const [row] = await trx('integration_links')
          .insert({ ...values, organizationId: actor.organizationId, projectId })
          .onConflict(['organizationId', 'provider', 'externalType', 'externalId'])
          .ignore()
          .returning('*');
        if (!row) {
          const existing = await trx('integration_links')
            .where({
              organizationId: actor.organizationId, provider: values.provider, externalType: values.externalType,
              externalId: values.externalId,
            })
            .first();
          const scoped = visibleProjectId(actor);
          if (!existing || (scoped && existing.projectId !== scoped)) {
            throw conflict('an integration link with this provider, externalType and externalId already exists');
          }
          return { resource: presentLink(existing), created: false };
        }
        await recordWrite(
          trx, actor,
          { entityType: 'integration_link', action: 'created', entityId: row.id, entityName: `${row.provider}:${row.externalType}:${row.externalId}`, projectId },
          [{ eventName: 'integration_link.created', entityType: 'integration_link', entityId: row.id, projectId, payload: integrationLinkPayload(row) }],
        );
        return { resource: presentLink(row), created: true };
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const before = await load(trx, actor, id, 'update');
        const values = pickColumns(body, ['alignEntityType', 'alignEntityId']);
        if (Object.keys(values).length) {
          values.projectId = await resolveTarget(
            trx, actor, values.alignEntityType ?? before.alignEntityType, values.alignEntityId ?? before.alignEntityId,
          );
        }
        const [row] = Object.keys(values).length
          ? await trx('integration_links').where({ id }).update({ ...values, updatedAt: trx.fn.now() }).returning('*')
          : [before];
        const changed = changedFields(before, row, LINK_FIELDS);
        await recordWrite(
          trx, actor,
          {
            entityType: 'integration_link', action: 'updated', entityId: id,
            entityName: `${row.provider}:${row.externalType}:${row.externalId}`, projectId: row.projectId,
            metadata: { changedFields: changed },
          },
          changed.length
            ? [{
                eventName: 'integration_link.updated', entityType: 'integration_link', entityId: id, projectId: row.projectId,
                payload: { ...integrationLinkPayload(row), changedFields: changed },
              }]
            : [],
        );
        return presentLink(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await db.transaction(async (trx) => {
        const row = await load(trx, actor, id, 'update');
        await trx('integration_links').where({ id }).del();
        await recordWrite(trx, actor, {
          entityType: 'integration_link', action: 'deleted', entityId: id,
          entityName: `${row.provider}:${row.externalType}:${row.externalId}`, projectId: row.projectId as string | null,
        });
      });
    },
  };
}
