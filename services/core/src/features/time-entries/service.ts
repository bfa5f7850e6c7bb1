import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { APPROVER_ROLES, type Role } from '@cluster/contracts';
import { conflict, forbidden, notFound, validation } from '@cluster/platform';
import { type Actor, assertVisible, projectInScope, requireActor, visibleRows } from '../../lib/actor.ts';
import { paginate, type Page } from '../../lib/list.ts';
import { recordWrite, type DomainEvent } from '../../outbox/record.ts';
import { formatHours, formatWorkDate, parseWorkDate, resolveMinutes, type Problem } from './duration.ts';
import { presentSynced, presentTimeEntry, presentWithLinks, timeEventPayload } from './presenter.ts';
import { APPROVER_ACTIONS, nextStatus, type TimeEntryAction } from './state-machine.ts';
import { costSummary, timeSummary } from './summaries.ts';
import { createExternalLink, type ExternalRef } from '../../lib/external-ref.ts';

type Row = Record<string, unknown>;

/** Fields an update may change, as named in `changedFields` (hours moves with minutes). */
const UPDATABLE = ['workDate', 'minutes', 'description', 'billable', 'releaseId'] as const;
/** Max length of a synced entry's description (spec, "Limits"). */
export const SYNC_DESCRIPTION_MAX = 2000;
/** IntegrationLink.externalType of the link a sync writes. */
export const SYNC_LINK_TYPE = 'time_entry';

/** The externalRef of this create is already linked (by a concurrent create that won): answer its entry. */
class ExternalRefTaken extends Error {}

const EVENT_OF: Record<Exclude<TimeEntryAction, 'update'>, string> = {
  submit: 'time.submitted',
  approve: 'time.approved',
  reject: 'time.rejected',
  unlock: 'time.unlocked',
};
const AUDIT_ACTION_OF: Record<Exclude<TimeEntryAction, 'update'>, string> = {
  submit: 'submitted',
  approve: 'approved',
  reject: 'rejected',
  unlock: 'unlocked',
};

const entityName = (row: Row) => `${formatHours(Number(row.minutes))}h on ${formatWorkDate(row.workDate)}`;
const timeEvent = (eventName: string, row: Row, extra: Record<string, unknown> = {}): DomainEvent => ({
  eventName,
  entityType: 'time_entry',
  entityId: row.id as string,
  projectId: row.projectId as string,
  payload: { ...timeEventPayload(row), ...extra },
});
const jsonb = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * Time entries: CRUD, the approval state machine (state-machine.ts), external sync
 * and summaries. Every write runs in one transaction that ends with recordWrite
 * (its audit event and its time.* events in the outbox).
 */
export function createTimeEntryService(db: Knex) {
  return {
    /** A project's entries (projectId) or the organization's (org-scoped keys; a project key sees its project only). */
    async list(actorIn: Actor | undefined, projectId: string | undefined, filters: Record<string, unknown>, page: number, pageSize: number): Promise<Page<JsonObject>> {
      const actor = requireActor(actorIn);
      const { query: q } = await visibleRows(db, 'time_entries', actor, projectId);
      if (typeof filters.status === 'string') q.andWhere({ status: filters.status });
      for (const f of ['userId', 'entryId', 'releaseId'] as const) {
        const v = filters[f];
        if (typeof v !== 'string') continue;
        if (!isUuid(v)) throw validation([{ path: f, message: 'must match format "uuid"' }]);
        q.andWhere(f, v);
      }
      addDateRange(q, filters);
      return paginate(q, page, pageSize, presentTimeEntry);
    },

    /** TimeEntryWithLinks: notes and every integration link of the entry. */
    async get(actorIn: Actor | undefined, id: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      const row = await load(db, actor, id);
      return presentWithLinks(row, await linksOf(db, actor, id));
    },

    /**
     * Logs time on a project (draft, time.logged). With `externalRef` the create is an
     * idempotent upsert: the entry already linked to that ref is answered, created false.
     */
    async create(actorIn: Actor | undefined, projectId: string, body: Record<string, unknown>): Promise<{ resource: JsonObject; created: boolean }> {
      const actor = requireActor(actorIn);
      await projectInScope(db, actor, projectId);
      const problems: Problem[] = [];
      const { minutes, problems: durationProblems } = resolveMinutes(body, true);
      problems.push(...durationProblems);
      const workDate = parseWorkDate(body.workDate);
      if (!workDate) problems.push({ path: '/workDate', message: 'must be a date YYYY-MM-DD' });
      await checkWorkItems(db, projectId, body, problems);
      if (problems.length) throw validation(problems);
      await checkUser(db, actor, body.userId);
      const ref = body.externalRef as ExternalRef | undefined;

      if (ref) {
        const existing = await entryOfRef(db, actor, ref, projectId);
        if (existing) return { resource: presentTimeEntry(existing), created: false };
      }
      try {
        return await db.transaction(async (trx) => {
          const [row] = await trx('time_entries')
            .insert({
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
            })
            .returning('*');
          let integrationLinkId: string | undefined;
          if (ref) {
            const link = await createExternalLink(trx, actor, pickRef(ref), 'time_entry', row.id, projectId);
            if (!link) throw new ExternalRefTaken();
            integrationLinkId = link.id as string;
          }
          await recordWrite(
            trx, actor,
            { entityType: 'time_entry', action: 'created', entityId: row.id, entityName: entityName(row), projectId, metadata: integrationLinkId ? { integrationLinkId } : {} },
            [timeEvent('time.logged', row)],
          );
          return { resource: presentTimeEntry(row), created: true };
        });
      } catch (err) {
        if (!(err instanceof ExternalRefTaken) || !ref) throw err;
        const existing = await entryOfRef(db, actor, ref, projectId);
        if (!existing) throw err;
        return { resource: presentTimeEntry(existing), created: false };
      }
    },

    /** Edits a draft or rejected entry (the status stays); time.updated only when a field changed. */
    async update(actorIn: Actor | undefined, id: string, body: Record<string, unknown>): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const before = await load(trx, actor, id, true);
        nextStatus('update', before.status as string);
        const problems: Problem[] = [];
        const values: Row = {};
        const { minutes, problems: durationProblems } = resolveMinutes(body, false);
        problems.push(...durationProblems);
        if (minutes !== undefined) values.minutes = minutes;
        if (body.workDate !== undefined) {
          const workDate = parseWorkDate(body.workDate);
          if (!workDate) problems.push({ path: '/workDate', message: 'must be a date YYYY-MM-DD' });
          else values.workDate = workDate;
        }
        for (const f of ['description', 'billable', 'releaseId'] as const) if (body[f] !== undefined) values[f] = body[f];
        await checkWorkItems(trx, before.projectId as string, { releaseId: body.releaseId }, problems);
        if (problems.length) throw validation(problems);

        const comparable: Row = { ...before, workDate: formatWorkDate(before.workDate) };
        const changes = Object.fromEntries(Object.entries(values).filter(([k, v]) => (comparable[k] ?? null) !== (v ?? null)));
        const [row] = Object.keys(changes).length
          ? await trx('time_entries').where({ id }).update({ ...changes, updatedAt: trx.fn.now() }).returning('*')
          : [before];
        const changedFields = UPDATABLE.filter((f) => f in changes).flatMap((f) => (f === 'minutes' ? ['hours', 'minutes'] : [f]));
        await recordWrite(
          trx, actor,
          { entityType: 'time_entry', action: 'updated', entityId: id, entityName: entityName(row), projectId: row.projectId as string, metadata: { changedFields } },
          changedFields.length ? [timeEvent('time.updated', row, { changedFields })] : [],
        );
        return presentTimeEntry(row);
      });
    },

    /** draft or rejected -> submitted (time.submitted). */
    submit: (actor: Actor | undefined, id: string) => transition(actor, id, 'submit', {}),
    /** submitted -> locked (time.approved, status locked); manager or admin. Optional note goes to the audit trail. */
    approve: (actor: Actor | undefined, id: string, body: Record<string, unknown>) => transition(actor, id, 'approve', body),
    /** submitted -> rejected (time.rejected with the reason); manager or admin. */
    reject: (actor: Actor | undefined, id: string, body: Record<string, unknown>) => transition(actor, id, 'reject', body),
    /** locked -> draft (time.unlocked, status locked, newStatus draft); manager or admin. */
    unlock: (actor: Actor | undefined, id: string, body: Record<string, unknown>) => transition(actor, id, 'unlock', body),

    /**
     * A time entry pushed by an external system. externalSystem + externalId is the
     * idempotency key, enforced by a unique constraint (INSERT ... ON CONFLICT DO
     * NOTHING), so concurrent repeats create one entry; a repeat answers the stored
     * entry and the same integration link, created false.
     */
    async sync(actorIn: Actor | undefined, body: Record<string, unknown>): Promise<{ resource: JsonObject; created: boolean }> {
      const actor = requireActor(actorIn);
      const projectId = String(body.projectId ?? '');
      await projectInScope(db, actor, projectId);
      const problems: Problem[] = [];
      for (const f of ['externalSystem', 'externalId'] as const) {
        if (typeof body[f] !== 'string' || (body[f] as string).trim() === '') problems.push({ path: `/${f}`, message: 'must be a non-empty string' });
      }
      const { minutes, problems: durationProblems } = resolveMinutes({ minutes: body.minutes ?? null }, true);
      problems.push(...durationProblems);
      const workDate = parseWorkDate(body.workDate, true);
      if (!workDate) problems.push({ path: '/workDate', message: 'must be a date YYYY-MM-DD or an ISO 8601 date-time' });
      if (typeof body.description === 'string' && body.description.length > SYNC_DESCRIPTION_MAX) {
        problems.push({ path: '/description', message: `must NOT have more than ${SYNC_DESCRIPTION_MAX} characters` });
      }
      await checkWorkItems(db, projectId, { entryId: body.entryId }, problems);
      if (problems.length) throw validation(problems);
      await checkUser(db, actor, body.userId);
      const externalSystem = body.externalSystem as string;
      const externalId = body.externalId as string;

      return db.transaction(async (trx) => {
        const [inserted] = await trx('time_entries')
          .insert({
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
            externalMetadata: jsonb(body.externalMetadata),
          })
          .onConflict(['organizationId', 'externalSystem', 'externalId'])
          .ignore()
          .returning('*');
        // On conflict the winner has committed (ON CONFLICT waits for it), so this read sees it.
        const row: Row = inserted ?? (await trx('time_entries').where({ organizationId: actor.organizationId, externalSystem, externalId }).first());
        if (row.projectId !== projectId) {
          throw conflict('this externalSystem and externalId are already synced into another project');
        }
        const ref = { provider: externalSystem, externalType: SYNC_LINK_TYPE, externalId };
        const newLink = await createExternalLink(trx, actor, ref, 'time_entry', row.id as string, projectId);
        const link: Row = newLink ?? (await trx('integration_links').where({ organizationId: actor.organizationId, ...ref }).first());
        if (link.alignEntityType !== 'time_entry' || link.alignEntityId !== row.id) {
          throw conflict('this external record is already linked to another record', { integrationLinkId: link.id as string });
        }
        const created = Boolean(inserted);
        if (created) {
          await recordWrite(
            trx, actor,
            {
              entityType: 'time_entry', action: 'created', entityId: row.id as string, entityName: entityName(row), projectId,
              metadata: { via: 'sync', externalSystem, externalId, integrationLinkId: link.id },
            },
            [timeEvent('time.logged', row)],
          );
        }
        return { resource: presentSynced(row, link.id as string, created), created };
      });
    },

    /** TimeSummary of a project (optional releaseId, from, to). */
    async timeSummary(actorIn: Actor | undefined, projectId: string, query: Record<string, unknown>): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      await projectInScope(db, actor, projectId);
      const releaseId = typeof query.releaseId === 'string' ? query.releaseId : null;
      if (releaseId !== null && !isUuid(releaseId)) throw validation([{ path: 'releaseId', message: 'must match format "uuid"' }]);
      return timeSummary(db, projectId, releaseId, (q) => addDateRange(q, query));
    },

    /** CostSummary of a project from its entries' cost fields, in the organization's currency. */
    async costSummary(actorIn: Actor | undefined, projectId: string): Promise<JsonObject> {
      const actor = requireActor(actorIn);
      await projectInScope(db, actor, projectId);
      return costSummary(db, actor.organizationId, projectId);
    },
  };

  /** A state transition other than an edit: one status move, its event and its audit record. */
  async function transition(actorIn: Actor | undefined, id: string, action: Exclude<TimeEntryAction, 'update'>, body: Record<string, unknown>): Promise<{ resource: JsonObject }> {
    const actor = requireActor(actorIn);
    if (APPROVER_ACTIONS.includes(action) && !APPROVER_ROLES.includes(actor.role as Role)) {
      throw forbidden('requires role manager or admin');
    }
    const reason = typeof body.reason === 'string' ? body.reason.trim() : '';
    if ((action === 'reject' || action === 'unlock') && !reason) {
      throw validation([{ path: '/reason', message: 'is required and must not be empty' }]);
    }
    return db.transaction(async (trx) => {
      const before = await load(trx, actor, id, true);
      const previousStatus = before.status as string;
      const status = nextStatus(action, previousStatus);
      const [row] = await trx('time_entries').where({ id }).update({ status, updatedAt: trx.fn.now() }).returning('*');
      const extra: Record<string, unknown> =
        action === 'approve' ? { approverUserId: actor.userId }
        : action === 'reject' ? { rejecterUserId: actor.userId, reason }
        : action === 'unlock' ? { unlockedByUserId: actor.userId, reason, status: previousStatus, newStatus: status }
        : {};
      const note = typeof body.note === 'string' ? body.note : undefined;
      await recordWrite(
        trx, actor,
        {
          entityType: 'time_entry', action: AUDIT_ACTION_OF[action], entityId: id, entityName: entityName(row), projectId: row.projectId as string,
          metadata: { previousStatus, newStatus: status, ...(reason ? { reason } : {}), ...(note !== undefined ? { note } : {}) },
        },
        [timeEvent(EVENT_OF[action], row, extra)],
      );
      return { resource: presentTimeEntry(row) };
    });
  }
}

/** A time entry by id: 404 when unknown, of another organization, or outside a project key's project. */
async function load(db: Knex, actor: Actor, id: string, lock = false): Promise<Row> {
  if (!isUuid(id)) throw notFound('time entry');
  const q = db('time_entries').where({ id });
  if (lock) q.forUpdate();
  const row = (await q.first()) as Row | undefined;
  assertVisible(actor, row, 'time entry');
  return row as Row;
}

function linksOf(db: Knex, actor: Actor, id: string): Promise<Row[]> {
  return db('integration_links')
    .where({ organizationId: actor.organizationId, alignEntityType: 'time_entry', alignEntityId: id })
    .orderBy([{ column: 'createdAt', order: 'asc' }, { column: 'id', order: 'asc' }]);
}

/** workDate range filter (inclusive) shared by lists and the time summary. */
function addDateRange(q: Knex.QueryBuilder, filters: Record<string, unknown>): void {
  for (const [f, op] of [['from', '>='], ['to', '<=']] as const) {
    const v = filters[f];
    if (v === undefined) continue;
    const date = parseWorkDate(typeof v === 'string' ? v : String(v));
    if (!date) throw validation([{ path: f, message: 'must be a date YYYY-MM-DD' }]);
    q.andWhere('workDate', op, date);
  }
}

/** `entryId` and `releaseId` must name a work item of the same project (400 otherwise). */
async function checkWorkItems(db: Knex, projectId: string, body: { entryId?: unknown; releaseId?: unknown }, problems: Problem[]): Promise<void> {
  for (const [field, table] of [['entryId', 'entries'], ['releaseId', 'releases']] as const) {
    const v = body[field];
    if (v === undefined || v === null) continue;
    const found = isUuid(v) && (await db(table).where({ id: v, projectId }).first('id'));
    if (!found) problems.push({ path: `/${field}`, message: `must be ${field === 'entryId' ? 'an entry' : 'a release'} of this project` });
  }
}

/** `userId` must be a user of the key's organization (404 otherwise). */
async function checkUser(db: Knex, actor: Actor, userId: unknown): Promise<void> {
  const found = isUuid(userId) && (await db('users').where({ id: userId, organizationId: actor.organizationId }).first('id'));
  if (!found) throw notFound('user');
}

function pickRef(ref: ExternalRef): ExternalRef {
  return { provider: ref.provider, externalType: ref.externalType, externalId: ref.externalId };
}

/**
 * The entry an externalRef is linked to, if any. A ref linked to another kind of
 * record, or to an entry of another project: 409 conflict (never another project's data).
 */
async function entryOfRef(db: Knex, actor: Actor, ref: ExternalRef, projectId: string): Promise<Row | undefined> {
  const link = await db('integration_links').where({ organizationId: actor.organizationId, ...pickRef(ref) }).first();
  if (!link) return undefined;
  if (link.alignEntityType !== 'time_entry') throw conflict(`this externalRef is already linked to a ${String(link.alignEntityType)}`);
  const row = (await db('time_entries').where({ id: link.alignEntityId, organizationId: actor.organizationId }).first()) as Row | undefined;
  if (!row) throw conflict('this externalRef is linked to a time entry that no longer exists');
  if (row.projectId !== projectId) throw conflict('this externalRef is already linked to a time entry of another project');
  return row;
}
