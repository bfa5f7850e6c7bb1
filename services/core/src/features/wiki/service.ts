import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { conflict, notFound } from '@cluster/platform';
import { type Actor, assertVisible, projectInScope, requireActor } from '../../lib/actor.ts';
import { createExternalLink, externalRefOf, lockExternalRef } from '../../lib/external-ref.ts';
import { changedFields, pickColumns, toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';
import { recordWrite } from '../../outbox/record.ts';

const PAGE_COLUMNS = ['id', 'projectId', 'title', 'content', 'createdAt', 'updatedAt'] as const;
const WRITABLE = ['title', 'content'] as const;

/** What leaves the core for a wiki page (spec WikiPage, with its full content). */
export function presentWikiPage(row: Record<string, unknown>): JsonObject {
  return toJson(Object.fromEntries(PAGE_COLUMNS.map((c) => [c, row[c] ?? null])));
}

function payload(row: Record<string, unknown>) {
  return { wikiPageId: row.id, projectId: row.projectId, organizationId: row.organizationId, title: row.title };
}

/** Wiki pages of a project; create is an idempotent upsert when the body has an externalRef. */
export function createWikiService(db: Knex) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      await projectInScope(db, actor, projectId);
      return paginate(db('wiki_pages').where({ projectId }), page, pageSize, presentWikiPage);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentWikiPage(await load(db, actor, id));
    },

    async create(actorIn: Actor | undefined, projectId: string, body: Record<string, unknown>): Promise<{ resource: JsonObject; created: boolean }> {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        await projectInScope(trx, actor, projectId);
        const ref = externalRefOf(body);
        if (ref) {
          const link = await lockExternalRef(trx, actor.organizationId, ref);
          if (link) {
            const page = link.alignEntityType === 'wiki_page'
              ? await trx('wiki_pages').where({ id: link.alignEntityId, organizationId: actor.organizationId }).first()
              : undefined;
            if (!page || page.projectId !== projectId) {
              throw conflict('externalRef is already linked to another record', { alignEntityType: String(link.alignEntityType) });
            }
            return { resource: presentWikiPage(page), created: false };
          }
        }
        const [row] = await trx('wiki_pages')
          .insert({ ...pickColumns(body, WRITABLE), projectId, organizationId: actor.organizationId, creatorId: actor.userId || null })
          .returning('*');
        if (ref) await createExternalLink(trx, actor, ref, 'wiki_page', row.id, projectId);
        await recordWrite(
          trx, actor,
          { entityType: 'wiki_page', action: 'created', entityId: row.id, entityName: row.title, projectId },
          [{ eventName: 'wiki_page.created', entityType: 'wiki_page', entityId: row.id, projectId, payload: payload(row) }],
        );
        return { resource: presentWikiPage(row), created: true };
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const before = await load(trx, actor, id, true);
        const values = pickColumns(body, WRITABLE);
        const [row] = Object.keys(values).length
          ? await trx('wiki_pages').where({ id }).update({ ...values, updatedAt: trx.fn.now() }).returning('*')
          : [before];
        const changed = changedFields(before, row, WRITABLE);
        await recordWrite(
          trx, actor,
          { entityType: 'wiki_page', action: 'updated', entityId: id, entityName: row.title, projectId: row.projectId, metadata: { changedFields: changed } },
          changed.length
            ? [{ eventName: 'wiki_page.updated', entityType: 'wiki_page', entityId: id, projectId: row.projectId, payload: { ...payload(row), changedFields: changed } }]
            : [],
        );
        return presentWikiPage(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await db.transaction(async (trx) => {
        const row = await load(trx, actor, id, true);
        const projectId = row.projectId as string;
        await trx('wiki_pages').where({ id }).del();
        // Its externalRef links go with it, so the same ref can create a fresh page later.
        await trx('integration_links').where({ organizationId: actor.organizationId, alignEntityType: 'wiki_page', alignEntityId: id }).del();
        await recordWrite(
          trx, actor,
          { entityType: 'wiki_page', action: 'deleted', entityId: id, entityName: row.title as string, projectId },
          [{ eventName: 'wiki_page.deleted', entityType: 'wiki_page', entityId: id, projectId, payload: payload(row) }],
        );
      });
    },
  };
}

/** A page by id: 404 unless it is in the actor's organization (and, for a project key, its project). */
async function load(db: Knex, actor: Actor, id: string, lock = false): Promise<Record<string, unknown>> {
  if (!isUuid(id)) throw notFound('wiki page');
  const q = db('wiki_pages').where({ id });
  if (lock) q.forUpdate();
  const row: Record<string, unknown> | undefined = await q.first();
  assertVisible(actor, row, 'wiki page');
  return row as Record<string, unknown>;
}
