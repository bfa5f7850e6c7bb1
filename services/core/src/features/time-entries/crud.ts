import type { JsonObject } from '@bufbuild/protobuf';
import { isUuid } from '@cluster/db';
import { TIME_ENTRY_UPDATABLE_FIELDS, type TimeEntryCreateBody, type TimeEntryUpdateBody } from '@cluster/contracts';
import { conflict, requireActor, validation, type Page, type PageArgs, presentPage } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { visibleProjectId } from '../../shared/access.ts';
import { externalLinkCreatedEvent, type ExternalRef } from '../../shared/external-ref.ts';
import { apiWrite, type ActorEvent } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { checkUser, checkWorkItems, dateRange, loadTimeEntry } from './checks.ts';
import { formatWorkDate, parseWorkDate, resolveMinutes, type Problem } from './duration.ts';
import { timeEntryName, timeEvent } from './events.ts';
import { loggedWrite } from './logged-write.ts';
import { presentTimeEntry, presentWithLinks } from './presenter.ts';
import { nextStatus } from './state-machine.ts';
import type { TimeEntryRow } from './store.ts';

/** The externalRef of this create is already linked (by a concurrent create that won): answer its entry. */
class ExternalRefTaken extends Error {}

/**
 * Time entries read, logged and edited through the API: lists, one entry with its links,
 * a create (an idempotent upsert with an externalRef) and an edit in the statuses that allow
 * one. Every write runs in one transaction that ends with its audit record and its events.
 */
export function createTimeEntryCrud(stores: Stores) {
  /**
   * The entry an externalRef is linked to, if any. A ref linked to another kind of
   * record, or to an entry of another project: 409 conflict (never another project's data).
   */
  async function entryOfRef(actor: Actor, ref: ExternalRef, projectId: string): Promise<TimeEntryRow | undefined> {
    const link = await stores.timeEntries.findExternalLink(actor.organizationId, ref);
    if (!link) return undefined;
    if (link.alignEntityType !== 'time_entry')
      throw conflict(`this externalRef is already linked to a ${String(link.alignEntityType)}`);
    const row = await stores.timeEntries.findInOrganization(actor.organizationId, link.alignEntityId);
    if (!row) throw conflict('this externalRef is linked to a time entry that no longer exists');
    if (row.projectId !== projectId) throw conflict('this externalRef is already linked to a time entry of another project');
    return row;
  }

  return {
    /** A project's entries (projectId) or the organization's (org-scoped keys; a project key sees its project only). */
    async list(
      actorIn: Actor | undefined,
      projectId: string | undefined,
      filters: Record<string, unknown>,
      page: PageArgs,
    ): Promise<Page<JsonObject>> {
      const actor = requireActor(actorIn);
      if (projectId) await projectInScope(stores.projects, actor, projectId);
      const ids: { userId?: string; entryId?: string; releaseId?: string } = {};
      for (const f of ['userId', 'entryId', 'releaseId'] as const) {
        const v = filters[f];
        if (typeof v !== 'string') continue;
        if (!isUuid(v)) throw validation([{ path: f, message: 'must match format "uuid"' }]);
        ids[f] = v;
      }
      const rows = await stores.timeEntries.list(
        actor.organizationId,
        {
          projectId: projectId || visibleProjectId(actor),
          status: typeof filters.status === 'string' ? filters.status : undefined,
          ...ids,
          ...dateRange(filters),
        },
        page,
      );
      return presentPage(rows, presentTimeEntry);
    },

    /** TimeEntryWithLinks: notes and every integration link of the entry. */
    async get(actorIn: Actor | undefined, id: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const row = await loadTimeEntry(stores, actor, id);
      return presentWithLinks(row, await stores.timeEntries.linksOf(actor.organizationId, id));
    },

    /**
     * Logs time on a project (draft, time.logged). With `externalRef` the create is an
     * idempotent upsert: the entry already linked to that ref is answered, created false.
     */
    async create(
      actorIn: Actor | undefined,
      projectId: string,
      body: TimeEntryCreateBody,
    ): Promise<{ resource: JsonObject; created: boolean }> {
      const actor = requireActor(actorIn);
      await projectInScope(stores.projects, actor, projectId);
      const problems: Problem[] = [];
      const { minutes, problems: durationProblems } = resolveMinutes(body, true);
      problems.push(...durationProblems);
      const workDate = parseWorkDate(body.workDate);
      if (!workDate) problems.push({ path: '/workDate', message: 'must be a date YYYY-MM-DD' });
      await checkWorkItems(stores, projectId, body, problems);
      if (problems.length) throw validation(problems);
      await checkUser(stores, actor, body.userId);
      const given = body.externalRef;
      const ref = given && { provider: given.provider, externalType: given.externalType, externalId: given.externalId };

      if (ref) {
        const existing = await entryOfRef(actor, ref, projectId);
        if (existing) return { resource: presentTimeEntry(existing), created: false };
      }
      try {
        return await stores.transaction(async (tx) => {
          const row = await tx.timeEntries.insert({
            organizationId: actor.organizationId,
            projectId,
            userId: body.userId,
            entryId: body.entryId ?? null,
            releaseId: body.releaseId ?? null,
            workDate,
            minutes,
            description: body.description ?? null,
            billable: body.billable ?? true,
            source: 'api',
            status: 'draft',
          });
          const events: ActorEvent[] = [];
          let integrationLinkId: string | undefined;
          if (ref) {
            const link = await tx.timeEntries.insertExternalLink({
              organizationId: actor.organizationId,
              projectId,
              ref,
              alignEntityType: 'time_entry',
              alignEntityId: row.id,
            });
            if (!link) throw new ExternalRefTaken();
            integrationLinkId = link.id;
            events.push(externalLinkCreatedEvent(link));
          }
          await tx.record(loggedWrite(actor, row, projectId, integrationLinkId ? { integrationLinkId } : {}, events));
          return { resource: presentTimeEntry(row), created: true };
        });
      } catch (err) {
        if (!(err instanceof ExternalRefTaken) || !ref) throw err;
        const existing = await entryOfRef(actor, ref, projectId);
        if (!existing) throw err;
        return { resource: presentTimeEntry(existing), created: false };
      }
    },

    /** Edits a draft or rejected entry (the status stays); time.updated only when a field changed. */
    async update(actorIn: Actor | undefined, id: string, body: TimeEntryUpdateBody): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = await loadTimeEntry(tx, actor, id, true);
        nextStatus('update', before.status);
        const problems: Problem[] = [];
        const values: Record<string, unknown> = {};
        const { minutes, problems: durationProblems } = resolveMinutes(body, false);
        problems.push(...durationProblems);
        if (minutes !== undefined) values.minutes = minutes;
        if (body.workDate !== undefined) {
          const workDate = parseWorkDate(body.workDate);
          if (!workDate) problems.push({ path: '/workDate', message: 'must be a date YYYY-MM-DD' });
          else values.workDate = workDate;
        }
        for (const f of ['description', 'billable', 'releaseId'] as const) if (body[f] !== undefined) values[f] = body[f];
        await checkWorkItems(tx, before.projectId, { releaseId: body.releaseId }, problems);
        if (problems.length) throw validation(problems);

        const comparable: Record<string, unknown> = { ...before, workDate: formatWorkDate(before.workDate) };
        const changes = Object.fromEntries(Object.entries(values).filter(([k, v]) => (comparable[k] ?? null) !== (v ?? null)));
        const row = Object.keys(changes).length ? await tx.timeEntries.update(id, changes) : before;
        const changedFields = TIME_ENTRY_UPDATABLE_FIELDS.filter((f) => f in changes).flatMap((f) =>
          f === 'minutes' ? ['hours', 'minutes'] : [f],
        );
        await tx.record(
          apiWrite(
            actor,
            {
              entityType: 'time_entry',
              action: 'updated',
              entityId: id,
              entityName: timeEntryName(row),
              projectId: row.projectId,
              metadata: { changedFields },
            },
            changedFields.length ? [timeEvent('time.updated', row, { changedFields })] : [],
          ),
        );
        return presentTimeEntry(row);
      });
    },
  };
}
