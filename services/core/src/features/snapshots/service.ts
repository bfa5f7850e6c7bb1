import type { Actor } from '@cluster/proto';
import { requireActor, type PageArgs, presentPage } from '@cluster/platform';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { presentSnapshot } from './presenter.ts';

/** Report snapshots of a project. There is no get by id (spec): the list is the only read. The admin CLI writes them (admin.ts). */
export function createSnapshotService(stores: Stores) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, page: PageArgs) {
      const actor = requireActor(actorIn);
      await projectInScope(stores.projects, actor, projectId);
      return presentPage(await stores.snapshots.list(projectId, page), presentSnapshot);
    },
  };
}
