import type { JsonObject } from '@bufbuild/protobuf';
import { requireActor } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { costSummary } from './summaries.ts';

/**
 * GET /projects/:id/cost-summary: a project's costs from its *entries'* cost fields (the
 * work items' mediumCost, committedCost, costApprovalStatus; docs/decisions-time.md), not
 * from its time entries. It is served by TimeEntryService (the contract puts it there), so
 * it lives here, apart from the time entries' own rules; the sums are the store's
 * `costSums`, their shape summaries.ts's `costSummary`.
 */
export function createEntryCostSummary(stores: Stores) {
  return {
    /** CostSummary of a project from its entries' cost fields, in the organization's currency. */
    async costSummary(actorIn: Actor | undefined, projectId: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      await projectInScope(stores.projects, actor, projectId);
      const sums = await stores.timeEntries.costSums(projectId);
      const org = await stores.organizations.find(actor.organizationId);
      return costSummary(projectId, org?.currency, sums);
    },
  };
}
