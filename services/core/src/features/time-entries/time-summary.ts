import type { JsonObject } from '@bufbuild/protobuf';
import { isUuid } from '@cluster/db';
import { requireActor, validation } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { dateRange } from './checks.ts';
import { timeSummary } from './summaries.ts';

/** GET /projects/:id/time-summary: the minutes logged on a project, summed in summaries.ts. */
export function createTimeSummary(stores: Stores) {
  return {
    /** TimeSummary of a project (optional releaseId, from, to). */
    async timeSummary(actorIn: Actor | undefined, projectId: string, query: Record<string, unknown>): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      await projectInScope(stores.projects, actor, projectId);
      const releaseId = typeof query.releaseId === 'string' ? query.releaseId : null;
      if (releaseId !== null && !isUuid(releaseId))
        throw validation([{ path: 'releaseId', message: 'must match format "uuid"' }]);
      const groups = await stores.timeEntries.minutesGroups(projectId, { releaseId, ...dateRange(query) });
      return timeSummary(projectId, releaseId, groups);
    },
  };
}
