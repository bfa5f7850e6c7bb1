import type { JsonObject } from '@bufbuild/protobuf';
import {
  INTEGRATION_LINK_FILTERS,
  INTEGRATION_LINK_UPDATABLE_FIELDS,
  INTEGRATION_LINK_WRITABLE_FIELDS,
  type IntegrationLinkCreateBody,
  type IntegrationLinkUpdateBody,
} from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { conflict, requireActor, validation, type PageArgs, presentPage } from '@cluster/platform';
import { assertVisible, visibleProjectId } from '../../shared/access.ts';
import { changedFields, pickFields } from '../../shared/fields.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { externalLinkCreatedEvent, type ExternalRef } from '../../shared/external-ref.ts';
import { integrationLinkUpdatedEvent, linkName } from './events.ts';
import { presentLink } from './presenter.ts';
import { ALIGN_ENTITY_TYPES, type AlignEntityType, type IntegrationLinkStore, type LinkFilter } from './store.ts';

const isAlignEntityType = (v: unknown): v is AlignEntityType => ALIGN_ENTITY_TYPES.some((t) => t === v);

/**
 * Resolves the linked internal record: it must exist in the actor's organization
 * and, for a project key, belong to its project (else 400). Returns its project.
 */
async function resolveTarget(links: IntegrationLinkStore, actor: Actor, type: unknown, id: unknown): Promise<string | null> {
  if (!isAlignEntityType(type)) {
    throw validation([{ path: '/alignEntityType', message: `must be one of: ${ALIGN_ENTITY_TYPES.join(', ')}` }]);
  }
  const target = await links.findAlignTarget(actor.organizationId, type, typeof id === 'string' ? id : '');
  const scoped = visibleProjectId(actor);
  if (!target || (scoped && target.projectId !== scoped)) {
    throw validation([{ path: '/alignEntityId', message: `must be the id of a ${type} visible to this key` }]);
  }
  return target.projectId;
}

/**
 * Integration links: bind an external record (provider, externalType, externalId)
 * to an internal one. Create is idempotent on the external triple per organization.
 */
export function createIntegrationLinkService(stores: Stores) {
  const load = async (links: IntegrationLinkStore, actor: Actor, id: string, lock?: 'update') =>
    assertVisible(actor, await links.find(id, { lock }), 'integration link');

  return {
    async list(actorIn: Actor | undefined, filters: Record<string, unknown>, page: PageArgs) {
      const actor = requireActor(actorIn);
      const filter: LinkFilter = {};
      for (const f of INTEGRATION_LINK_FILTERS) if (typeof filters[f] === 'string') filter[f] = filters[f];
      const rows = await stores.integrationLinks.list(
        actor.organizationId,
        { ...filter, projectId: visibleProjectId(actor) },
        page,
      );
      return presentPage(rows, presentLink);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentLink(await load(stores.integrationLinks, actor, id));
    },

    /** 201 with a new link; 200 with the existing one when the external triple is known. */
    async create(
      actorIn: Actor | undefined,
      body: IntegrationLinkCreateBody,
    ): Promise<{ resource: JsonObject; created: boolean }> {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const values = pickFields(body, INTEGRATION_LINK_WRITABLE_FIELDS);
        const projectId = await resolveTarget(tx.integrationLinks, actor, values.alignEntityType, values.alignEntityId);
        const ref: ExternalRef = {
          provider: String(values.provider),
          externalType: String(values.externalType),
          externalId: String(values.externalId),
        };
        const row = await tx.integrationLinks.insertExternalLink({
          organizationId: actor.organizationId,
          projectId,
          ref,
          alignEntityType: String(values.alignEntityType),
          alignEntityId: String(values.alignEntityId),
        });
        if (!row) {
          const existing = await tx.integrationLinks.findExternalLink(actor.organizationId, ref);
          const scoped = visibleProjectId(actor);
          if (!existing || (scoped && existing.projectId !== scoped)) {
            throw conflict('an integration link with this provider, externalType and externalId already exists');
          }
          return { resource: presentLink(existing), created: false };
        }
        await tx.record(
          apiWrite(
            actor,
            { entityType: 'integration_link', action: 'created', entityId: row.id, entityName: linkName(row), projectId },
            [externalLinkCreatedEvent(row)],
          ),
        );
        return { resource: presentLink(row), created: true };
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: IntegrationLinkUpdateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = await load(tx.integrationLinks, actor, id, 'update');
        const values: Record<string, unknown> = pickFields(body, INTEGRATION_LINK_UPDATABLE_FIELDS);
        if (Object.keys(values).length) {
          values.projectId = await resolveTarget(
            tx.integrationLinks,
            actor,
            values.alignEntityType ?? before.alignEntityType,
            values.alignEntityId ?? before.alignEntityId,
          );
        }
        const row = Object.keys(values).length ? await tx.integrationLinks.update(id, values) : before;
        const changed = changedFields(before, row, INTEGRATION_LINK_WRITABLE_FIELDS);
        await tx.record(
          apiWrite(
            actor,
            {
              entityType: 'integration_link',
              action: 'updated',
              entityId: id,
              entityName: linkName(row),
              projectId: row.projectId,
              metadata: { changedFields: changed },
            },
            changed.length ? [integrationLinkUpdatedEvent(row, changed)] : [],
          ),
        );
        return presentLink(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = await load(tx.integrationLinks, actor, id, 'update');
        await tx.integrationLinks.remove(id);
        await tx.record(
          apiWrite(actor, {
            entityType: 'integration_link',
            action: 'deleted',
            entityId: id,
            entityName: linkName(row),
            projectId: row.projectId,
          }),
        );
      });
    },
  };
}
