import type { JsonObject } from '@bufbuild/protobuf';
import { isUuid } from '@cluster/db';
import {
  APPROVER_ROLES,
  TIME_ENTRY_UPDATABLE_FIELDS,
  type Role,
  type SyncTimeEntryBody,
  type TimeEntryApproveBody,
  type TimeEntryCreateBody,
  type TimeEntryReasonBody,
  type TimeEntryUpdateBody,
} from '@cluster/contracts';
import {
  conflict,
  forbidden,
  notFound,
  requireActor,
  validation,
  type Page,
  type PageArgs,
  presentPage,
} from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { assertVisible, visibleProjectId } from '../../shared/access.ts';
import { externalLinkCreatedEvent, type ExternalRef } from '../../shared/external-ref.ts';
import { apiWrite, type ActorEvent } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { formatWorkDate, parseWorkDate, resolveMinutes, type Problem } from './duration.ts';
import { TIME_EVENT_OF, timeEntryName, timeEvent } from './events.ts';
import { presentSynced, presentTimeEntry, presentWithLinks } from './presenter.ts';
import { APPROVER_ACTIONS, nextStatus, type TimeEntryAction } from './state-machine.ts';
import type { TimeEntryRow } from './store.ts';
import { costSummary, timeSummary } from './summaries.ts';

/** Max length of a synced entry's description (spec, "Limits"). */
export const SYNC_DESCRIPTION_MAX = 2000;
/** IntegrationLink.externalType of the link a sync writes. */
export const SYNC_LINK_TYPE = 'time_entry';

/** The externalRef of this create is already linked (by a concurrent create that won): answer its entry. */
class ExternalRefTaken extends Error {}

/** The body of a transition: approve's optional note, reject's and unlock's reason; submit has none. */
type TransitionBody = { note?: string | null; reason?: string };

const AUDIT_ACTION_OF: Record<Exclude<TimeEntryAction, 'update'>, string> = {
  submit: 'submitted',
  approve: 'approved',
  reject: 'rejected',
  unlock: 'unlocked',
};

/**
 * Time entries: CRUD, the approval state machine (state-machine.ts), external sync
 * and summaries. Every write runs in one transaction that ends with its audit
 * record and its time.* events (Stores.record). Rules only; SQL is in the store.
 */
export function createTimeEntryService(stores: Stores) {
  /** A time entry by id: 404 when unknown, of another organization, or outside a project key's project. */
  async function load(tx: Stores, actor: Actor, id: string, lock = false): Promise<TimeEntryRow> {
    return assertVisible(actor, await tx.timeEntries.find(id, { lock }), 'time entry');
  }

  /** `entryId` and `releaseId` must name a work item of the same project (400 otherwise). */
  async function checkWorkItems(
    tx: Stores,
    projectId: string,
    body: { entryId?: unknown; releaseId?: unknown },
    problems: Problem[],
  ) {
    for (const [field, kind] of [
      ['entryId', 'entry'],
      ['releaseId', 'release'],
    ] as const) {
      const v = body[field];
      if (v === undefined || v === null) continue;
      const found = typeof v === 'string' && (await tx.timeEntries.hasWorkItem(kind, v, projectId));
      if (!found)
        problems.push({
          path: `/${field}`,
          message: `must be ${field === 'entryId' ? 'an entry' : 'a release'} of this project`,
        });
    }
  }

  /** `userId` must be a user of the key's organization (404 otherwise). */
  async function checkUser(actor: Actor, userId: unknown): Promise<void> {
    const found = typeof userId === 'string' && (await stores.users.find(actor.organizationId, userId));
    if (!found) throw notFound('user');
  }

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

  /** A state transition other than an edit: one status move, its event and its audit record. */
  async function transition(
    actorIn: Actor | undefined,
    id: string,
    action: Exclude<TimeEntryAction, 'update'>,
    body: TransitionBody,
  ): Promise<{ resource: JsonObject }> {
    const actor = requireActor(actorIn);
    if (APPROVER_ACTIONS.includes(action) && !APPROVER_ROLES.includes(actor.role as Role)) {
      throw forbidden('requires role manager or admin');
    }
    const reason = typeof body.reason === 'string' ? body.reason.trim() : '';
    if ((action === 'reject' || action === 'unlock') && !reason) {
      throw validation([{ path: '/reason', message: 'is required and must not be empty' }]);
    }
    return stores.transaction(async (tx) => {
      const before = await load(tx, actor, id, true);
      const previousStatus = before.status;
      const status = nextStatus(action, previousStatus);
      const row = await tx.timeEntries.update(id, { status });
      const extra: Record<string, unknown> =
        action === 'approve'
          ? { approverUserId: actor.userId }
          : action === 'reject'
            ? { rejecterUserId: actor.userId, reason }
            : action === 'unlock'
              ? { unlockedByUserId: actor.userId, reason, status: previousStatus, newStatus: status }
              : {};
      const note = typeof body.note === 'string' ? body.note : undefined;
      await tx.record(
        apiWrite(
          actor,
          {
            entityType: 'time_entry',
            action: AUDIT_ACTION_OF[action],
            entityId: id,
            entityName: timeEntryName(row),
            projectId: row.projectId,
            metadata: {
              previousStatus,
              newStatus: status,
              ...(reason ? { reason } : {}),
              ...(note !== undefined ? { note } : {}),
            },
          },
          [timeEvent(TIME_EVENT_OF[action], row, extra)],
        ),
      );
      return { resource: presentTimeEntry(row) };
    });
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
      const row = await load(stores, actor, id);
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
      await checkUser(actor, body.userId);
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
        const before = await load(tx, actor, id, true);
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

    /** draft or rejected -> submitted (time.submitted). */
    submit: (actor: Actor | undefined, id: string) => transition(actor, id, 'submit', {}),
    /** submitted -> locked (time.approved, status locked); manager or admin. Optional note goes to the audit trail. */
    approve: (actor: Actor | undefined, id: string, body: TimeEntryApproveBody) => transition(actor, id, 'approve', body),
    /** submitted -> rejected (time.rejected with the reason); manager or admin. */
    reject: (actor: Actor | undefined, id: string, body: TimeEntryReasonBody) => transition(actor, id, 'reject', body),
    /** locked -> draft (time.unlocked, status locked, newStatus draft); manager or admin. */
    unlock: (actor: Actor | undefined, id: string, body: TimeEntryReasonBody) => transition(actor, id, 'unlock', body),

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
      await checkWorkItems(stores, projectId, { entryId: body.entryId }, problems);
      if (problems.length) throw validation(problems);
      await checkUser(actor, body.userId);
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

/**
 * The write of a new time entry, made through the API or by a sync: its audit record
 * (created, with `metadata`) and time.logged after the events of its new integration link.
 */
function loggedWrite(
  actor: Actor,
  row: TimeEntryRow,
  projectId: string,
  metadata: Record<string, unknown>,
  linkEvents: ActorEvent[],
) {
  return apiWrite(
    actor,
    { entityType: 'time_entry', action: 'created', entityId: row.id, entityName: timeEntryName(row), projectId, metadata },
    [...linkEvents, timeEvent('time.logged', row)],
  );
}

/** The workDate range (inclusive) of a list or summary query: `from` and `to`, each a date YYYY-MM-DD (400 otherwise). */
function dateRange(filters: Record<string, unknown>): { from?: string; to?: string } {
  const range: { from?: string; to?: string } = {};
  for (const f of ['from', 'to'] as const) {
    const v = filters[f];
    if (v === undefined) continue;
    const date = parseWorkDate(typeof v === 'string' ? v : ''); // the gateway's query schema makes it a string
    if (!date) throw validation([{ path: f, message: 'must be a date YYYY-MM-DD' }]);
    range[f] = date;
  }
  return range;
}
