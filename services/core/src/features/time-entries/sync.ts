import type { JsonObject } from '@bufbuild/protobuf';
import type { SyncTimeEntryBody } from '@cluster/contracts';
import { conflict, requireActor, validation } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { externalLinkCreatedEvent } from '../../shared/external-ref.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { checkUser, checkWorkItems } from './checks.ts';
import { parseWorkDate, resolveMinutes, type Problem } from './duration.ts';
import { loggedWrite } from './logged-write.ts';
import { presentSynced } from './presenter.ts';

/** Max length of a synced entry's description (spec, "Limits"). */
export const SYNC_DESCRIPTION_MAX = 2000;
/** IntegrationLink.externalType of the link a sync writes. */
export const SYNC_LINK_TYPE = 'time_entry';

/** The problems of a sync's body beyond the gateway's schema (400 with all of them). */
function syncProblems(body: SyncTimeEntryBody): {
  problems: Problem[];
  minutes: number | undefined;
  workDate: string | undefined;
} {
  const problems: Problem[] = [];
  for (const f of ['externalSystem', 'externalId'] as const) {
    if (typeof body[f] !== 'string' || body[f].trim() === '')
      problems.push({ path: `/${f}`, message: 'must be a non-empty string' });
  }
  const { minutes, problems: durationProblems } = resolveMinutes({ minutes: body.minutes ?? null }, true);
  problems.push(...durationProblems);
  const workDate = parseWorkDate(body.workDate, true);
  if (!workDate) problems.push({ path: '/workDate', message: 'must be a date YYYY-MM-DD or an ISO 8601 date-time' });
  if (typeof body.description === 'string' && body.description.length > SYNC_DESCRIPTION_MAX) {
    problems.push({ path: '/description', message: `must NOT have more than ${SYNC_DESCRIPTION_MAX} characters` });
  }
  return { problems, minutes, workDate };
}

/**
 * Time entries pushed by an external system (POST /time-entries/sync): one entry and one
 * integration link per externalSystem + externalId, however often and concurrently it is sent.
 */
export function createTimeEntrySync(stores: Stores) {
  return {
    /**
     * A time entry pushed by an external system. externalSystem + externalId is the
     * idempotency key, enforced by a unique constraint (the store inserts with ON
     * CONFLICT DO NOTHING), so concurrent repeats create one entry; a repeat answers
     * the stored entry and the same integration link, created false.
     */
    async sync(actorIn: Actor | undefined, body: SyncTimeEntryBody): Promise<{ resource: JsonObject; created: boolean }> {
      const actor = requireActor(actorIn);
      const projectId = String(body.projectId ?? '');
      await projectInScope(stores.projects, actor, projectId);
      const { problems, minutes, workDate } = syncProblems(body);
      await checkWorkItems(stores, projectId, { entryId: body.entryId }, problems);
      if (problems.length) throw validation(problems);
      await checkUser(stores, actor, body.userId);
      const externalSystem = body.externalSystem;
      const externalId = body.externalId;

      return stores.transaction(async (tx) => {
        const inserted = await tx.timeEntries.insertSynced({
          organizationId: actor.organizationId,
          projectId,
          userId: body.userId,
          entryId: body.entryId ?? null,
          workDate,
          minutes,
          description: body.description ?? null,
          billable: body.billable ?? true,
          source: externalSystem,
          status: 'draft',
          externalSystem,
          externalId,
          externalMetadata: body.externalMetadata ?? null,
        });
        // On conflict the winner has committed (ON CONFLICT waits for it), so this read sees it.
        const row = inserted ?? (await tx.timeEntries.findSynced(actor.organizationId, externalSystem, externalId));
        if (!row) throw new Error('a conflicting synced time entry is not visible');
        if (row.projectId !== projectId) {
          throw conflict('this externalSystem and externalId are already synced into another project');
        }
        const ref = { provider: externalSystem, externalType: SYNC_LINK_TYPE, externalId };
        const newLink = await tx.timeEntries.insertExternalLink({
          organizationId: actor.organizationId,
          projectId,
          ref,
          alignEntityType: 'time_entry',
          alignEntityId: row.id,
        });
        const link = newLink ?? (await tx.timeEntries.findExternalLink(actor.organizationId, ref));
        if (!link) throw new Error('a conflicting integration link is not visible');
        if (link.alignEntityType !== 'time_entry' || link.alignEntityId !== row.id) {
          throw conflict('this external record is already linked to another record', { integrationLinkId: link.id });
        }
        const created = Boolean(inserted);
        const linkEvents = newLink ? [externalLinkCreatedEvent(newLink)] : [];
        if (created) {
          await tx.record(
            loggedWrite(
              actor,
              row,
              projectId,
              { via: 'sync', externalSystem, externalId, integrationLinkId: link.id },
              linkEvents,
            ),
          );
        } else if (linkEvents.length) {
          await tx.record(apiWrite(actor, null, linkEvents));
        }
        return { resource: presentSynced(row, link.id, created), created };
      });
    },
  };
}
