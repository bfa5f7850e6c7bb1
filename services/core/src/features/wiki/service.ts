import type { JsonObject } from '@bufbuild/protobuf';
import { WIKI_PAGE_WRITABLE_FIELDS, type WikiPageCreateBody, type WikiPageUpdateBody } from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { conflict, requireActor, type PageArgs, presentPage } from '@cluster/platform';
import { assertVisible } from '../../shared/access.ts';
import { externalLinkCreatedEvent, externalRefOf } from '../../shared/external-ref.ts';
import { changedFields, pickFields } from '../../shared/fields.ts';
import { apiWrite, type ActorEvent } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { wikiPageEvent } from './events.ts';
import { presentWikiPage } from './presenter.ts';

/** Wiki pages of a project; create is an idempotent upsert when the body has an externalRef. Rules only; SQL is in the store. */
export function createWikiService(stores: Stores) {
  /** A page by id: 404 unless it is in the actor's organization (and, for a project key, its project). */
  async function load(tx: Stores, actor: Actor, id: string, lock = false) {
    return assertVisible(actor, await tx.wiki.find(id, { lock }), 'wiki page');
  }

  return {
    async list(actorIn: Actor | undefined, projectId: string, page: PageArgs) {
      const actor = requireActor(actorIn);
      await projectInScope(stores.projects, actor, projectId);
      return presentPage(await stores.wiki.list(projectId, page), presentWikiPage);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentWikiPage(await load(stores, actor, id));
    },

    /**
     * wiki_page.created. With an externalRef already linked to a page of this
     * project: that page, created false; linked to anything else: 409.
     */
    async create(
      actorIn: Actor | undefined,
      projectId: string,
      body: WikiPageCreateBody,
    ): Promise<{ resource: JsonObject; created: boolean }> {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        await projectInScope(tx.projects, actor, projectId);
        const ref = externalRefOf(body);
        if (ref) {
          const link = await tx.wiki.lockExternalRef(actor.organizationId, ref);
          if (link) {
            const page =
              link.alignEntityType === 'wiki_page'
                ? await tx.wiki.findInOrganization(actor.organizationId, link.alignEntityId)
                : undefined;
            if (!page || page.projectId !== projectId) {
              throw conflict('externalRef is already linked to another record', {
                alignEntityType: String(link.alignEntityType),
              });
            }
            return { resource: presentWikiPage(page), created: false };
          }
        }
        const row = await tx.wiki.insert({
          ...pickFields(body, WIKI_PAGE_WRITABLE_FIELDS),
          projectId,
          organizationId: actor.organizationId,
          creatorId: actor.userId || null,
        });
        const events: ActorEvent[] = [];
        if (ref) {
          const link = await tx.wiki.insertExternalLink({
            organizationId: actor.organizationId,
            projectId,
            ref,
            alignEntityType: 'wiki_page',
            alignEntityId: row.id,
          });
          if (link) events.push(externalLinkCreatedEvent(link));
        }
        await tx.record(
          apiWrite(actor, { entityType: 'wiki_page', action: 'created', entityId: row.id, entityName: row.title, projectId }, [
            ...events,
            wikiPageEvent('wiki_page.created', row),
          ]),
        );
        return { resource: presentWikiPage(row), created: true };
      });
    },

    /** wiki_page.updated with the changed fields only when something changed; audited either way. */
    async update(actorIn: Actor | undefined, id: string, body: WikiPageUpdateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = await load(tx, actor, id, true);
        const values = pickFields(body, WIKI_PAGE_WRITABLE_FIELDS);
        const row = Object.keys(values).length ? await tx.wiki.update(id, values) : before;
        const changed = changedFields(before, row, WIKI_PAGE_WRITABLE_FIELDS);
        await tx.record(
          apiWrite(
            actor,
            {
              entityType: 'wiki_page',
              action: 'updated',
              entityId: id,
              entityName: row.title,
              projectId: row.projectId,
              metadata: { changedFields: changed },
            },
            changed.length ? [wikiPageEvent('wiki_page.updated', row, { changedFields: changed })] : [],
          ),
        );
        return presentWikiPage(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = await load(tx, actor, id, true);
        await tx.wiki.remove(actor.organizationId, id);
        await tx.record(
          apiWrite(
            actor,
            { entityType: 'wiki_page', action: 'deleted', entityId: id, entityName: row.title, projectId: row.projectId },
            [wikiPageEvent('wiki_page.deleted', row)],
          ),
        );
      });
    },
  };
}
