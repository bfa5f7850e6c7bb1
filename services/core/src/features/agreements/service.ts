import type { Actor } from '@cluster/proto';
import { notFound, requireActor, type PageArgs, presentPage } from '@cluster/platform';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { presentAgreement } from './presenter.ts';

/** Agreements are read-only over the API; the admin CLI creates and signs them (admin.ts). */
export function createAgreementService(stores: Stores) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, page: PageArgs) {
      const actor = requireActor(actorIn);
      await projectInScope(stores.projects, actor, projectId);
      return presentPage(await stores.agreements.list(projectId, page), presentAgreement);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      const row = await stores.agreements.find(actor.organizationId, id);
      // A project key sees its project's agreements only (one without a project is organization-wide).
      if (!row || (actor.scope === 'project' && row.projectId !== actor.scopedProjectId)) throw notFound('agreement');
      return presentAgreement(row);
    },
  };
}
