import {
  PROJECT_STATUSES,
  PROJECT_WRITABLE_FIELDS,
  isOneOf,
  type ProjectCreateBody,
  type ProjectUpdateBody,
} from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { requireActor, type PageArgs, presentPage } from '@cluster/platform';
import { visibleProjectId } from '../../shared/access.ts';
import { changedFields, pickFields } from '../../shared/fields.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { projectEvent } from './events.ts';
import { presentProject } from './presenter.ts';
import { projectInScope } from './scope.ts';

/** Projects: the organization's containers of entries. Rules only; SQL is in the store. */
export function createProjectService(stores: Stores) {
  return {
    async list(actorIn: Actor | undefined, filters: Record<string, unknown>, page: PageArgs) {
      const actor = requireActor(actorIn);
      const status = isOneOf(PROJECT_STATUSES, filters.status) ? filters.status : undefined;
      const rows = await stores.projects.list(actor.organizationId, { id: visibleProjectId(actor), status }, page);
      return presentPage(rows, presentProject);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentProject(await projectInScope(stores.projects, actor, id));
    },

    async create(actorIn: Actor | undefined, body: ProjectCreateBody) {
      const actor = requireActor(actorIn);
      // clientId is the organization on create; only an update may change it.
      const { clientId: _ignored, ...values } = pickFields(body, PROJECT_WRITABLE_FIELDS);
      return stores.transaction(async (tx) => {
        const row = await tx.projects.insert({ ...values, organizationId: actor.organizationId, clientId: actor.organizationId });
        await tx.record(
          apiWrite(
            actor,
            { entityType: 'project', action: 'created', entityId: row.id, entityName: row.name, projectId: row.id },
            [projectEvent('project.created', row)],
          ),
        );
        return presentProject(row);
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: ProjectUpdateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = await projectInScope(tx.projects, actor, id, { lock: true });
        const values = pickFields(body, PROJECT_WRITABLE_FIELDS);
        const row = Object.keys(values).length ? await tx.projects.update(id, values) : before;
        const changed = changedFields(before, row, PROJECT_WRITABLE_FIELDS);
        await tx.record(
          apiWrite(
            actor,
            {
              entityType: 'project',
              action: 'updated',
              entityId: id,
              entityName: row.name,
              projectId: id,
              metadata: { changedFields: changed },
            },
            changed.length ? [projectEvent('project.updated', row, { changedFields: changed })] : [],
          ),
        );
        return presentProject(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = await projectInScope(tx.projects, actor, id, { lock: true });
        await tx.projects.remove(id);
        await tx.record(
          apiWrite(actor, { entityType: 'project', action: 'deleted', entityId: id, entityName: row.name, projectId: id }, [
            projectEvent('project.deleted', row),
          ]),
        );
      });
    },
  };
}
