import { randomUUID } from 'node:crypto';
import { isUuid, type Knex } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { notFound, validation } from '@cluster/platform';
import { type Actor, projectInScope, requireActor } from '../../lib/actor.ts';
import { changedFields, pickColumns, toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';
import { type DomainEvent, insertRowCte, recordWrite, writeInOneStatement } from '../../outbox/record.ts';
import { loadVisibleEntry } from './lookup.ts';

/**
 * Every writable entry column: the spec's create/update body. `deploymentStage`
 * is absent on purpose (read-only, ignored in bodies) and so is `projectId`.
 */
export const ENTRY_FIELDS = [
  'type', 'title', 'description', 'status', 'priority', 'assignedToId', 'releaseId', 'typeMetadata',
  'webLink', 'stepsToReproduce', 'expectedBehavior', 'actualBehavior', 'environment', 'useCase', 'proposedSolution',
  'lowCost', 'mediumCost', 'highCost', 'committedCost', 'committedPosition', 'costSource', 'costOverrideReason',
  'statusChangedAt', 'approvalStatus', 'costApprovalStatus',
] as const;
const JSON_FIELDS = ['typeMetadata'];
/**
 * A new entry's values unless its body gives them (the columns' defaults too): a create
 * writes every column of NEW_ENTRY_COLUMNS, and its events carry the status.
 */
const NEW_ENTRY_DEFAULTS = { status: 'open', priority: 'medium' };
const NEW_ENTRY_COLUMNS = [...ENTRY_FIELDS, 'id', 'projectId', 'organizationId', 'creatorId'];
/**
 * Every column of an entry, named (so a prepared statement's result cannot change under a
 * migration), in the table's order: a create answers its fields in the order a read does.
 */
const ENTRY_COLUMNS = [
  'id', 'projectId', 'organizationId', 'entryNumber', 'type', 'title', 'description', 'status', 'priority', 'assignedToId',
  'releaseId', 'creatorId', 'typeMetadata', 'deploymentStage', 'webLink', 'stepsToReproduce', 'expectedBehavior',
  'actualBehavior', 'environment', 'useCase', 'proposedSolution', 'lowCost', 'mediumCost', 'highCost', 'committedCost',
  'committedPosition', 'costSource', 'costOverrideReason', 'statusChangedAt', 'approvalStatus', 'costApprovalStatus',
  'createdAt', 'updatedAt',
];
const FILTERS = ['status', 'type', 'priority', 'assignedToId', 'releaseId'] as const;

/** What leaves the core for an entry: the spec's fields and every body field, plus creatorId. */
export function presentEntry(row: Record<string, unknown>): JsonObject {
  return toJson(row, ['organizationId']);
}

/** The fields every entry event carries (spec: entry.created). */
function basePayload(row: Record<string, unknown>) {
  return { entryId: row.id, projectId: row.projectId, title: row.title, type: row.type, status: row.status };
}

function entryEvent(eventName: string, row: Record<string, unknown>, extra: Record<string, unknown> = {}): DomainEvent {
  return {
    eventName, entityType: 'entry', entityId: row.id as string, projectId: row.projectId as string,
    payload: { ...basePayload(row), ...extra },
  };
}

/** Events of an entry update, in order: updated, status_changed, assigned, cost.approved/rejected. */
function updateEvents(before: Record<string, unknown>, row: Record<string, unknown>, changed: string[]): DomainEvent[] {
  if (!changed.length) return [];
  const events = [entryEvent('entry.updated', row, { changedFields: changed })];
  if (changed.includes('status')) {
    events.push(entryEvent('entry.status_changed', row, { previousStatus: before.status, newStatus: row.status }));
  }
  if (changed.includes('assignedToId')) {
    events.push(entryEvent('entry.assigned', row, { assignedToId: row.assignedToId, previousAssignedToId: before.assignedToId }));
  }
  const cost = row.costApprovalStatus;
  if (changed.includes('costApprovalStatus') && (cost === 'approved' || cost === 'rejected')) {
    events.push({
      ...entryEvent(`cost.${cost}`, row),
      payload: {
        entryId: row.id, projectId: row.projectId, title: row.title, costApprovalStatus: cost,
        previousCostApprovalStatus: before.costApprovalStatus, committedCost: row.committedCost,
      },
    });
  }
  return events;
}

/**
 * Entries of a project. Numbers come from projects.entryCounter, bumped under the
 * project row lock in the creating statement: gap-free, and a failed create gives the
 * number back.
 */
export function createEntryService(db: Knex) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, filters: Record<string, unknown>, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      await projectInScope(db, actor, projectId);
      const q = db('entries').where({ projectId });
      for (const f of FILTERS) if (typeof filters[f] === 'string') q.andWhere(f, filters[f] as string);
      return paginate(q, page, pageSize, presentEntry);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentEntry(await loadVisibleEntry(db, actor, id));
    },

    async create(actorIn: Actor | undefined, projectId: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      if (!isUuid(projectId)) throw notFound('project');
      // A project key naming another project: 404 if the organization has no such project, else 403.
      if (actor.scope === 'project' && actor.scopedProjectId !== projectId) await projectInScope(db, actor, projectId);
      const values = pickColumns(body, ENTRY_FIELDS);
      await checkReferences(db, actor, projectId, values);
      // The whole create is one statement (no transaction, one round trip): it finds the project
      // in the actor's organization, locks it and bumps its counter, inserts the entry with that
      // number, and writes the audit record and events, all or nothing. No such project: nothing.
      const entry: Record<string, unknown> = {
        ...NEW_ENTRY_DEFAULTS, ...values, id: randomUUID(), projectId, organizationId: actor.organizationId, creatorId: actor.userId || null,
      };
      const counter = {
        sql: 'counter AS (UPDATE projects SET "entryCounter" = "entryCounter" + 1 WHERE id = ? AND "organizationId" = ? RETURNING "entryCounter")',
        bindings: [projectId, actor.organizationId],
      };
      const insert = insertRowCte('written', 'entries', entry, {
        columns: NEW_ENTRY_COLUMNS, returning: ENTRY_COLUMNS, from: 'counter', computed: { entryNumber: 'counter."entryCounter"' },
      });
      const events = [entryEvent('entry.created', entry)];
      if (entry.assignedToId) events.push(entryEvent('entry.assigned', entry, { assignedToId: entry.assignedToId, previousAssignedToId: null }));
      const row = await writeInOneStatement(
        db, actor,
        [counter, insert],
        { entityType: 'entry', action: 'created', entityId: entry.id as string, entityName: entry.title as string, projectId },
        events,
        // Planning it cost Postgres a third of a millisecond per create (pg_stat_statements).
        { prepared: 'core-entry-create-v4' },
      );
      if (!row) throw notFound('project');
      return presentEntry(row);
    },

    async update(actorIn: Actor | undefined, id: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const before = await loadVisibleEntry(trx, actor, id, 'update');
        const values = pickColumns(body, ENTRY_FIELDS, JSON_FIELDS);
        await checkReferences(trx, actor, before.projectId as string, values);
        if ('status' in values && values.status !== before.status && !('statusChangedAt' in values)) {
          values.statusChangedAt = trx.fn.now();
        }
        const [row] = Object.keys(values).length
          ? await trx('entries').where({ id }).update({ ...values, updatedAt: trx.fn.now() }).returning('*')
          : [before];
        const changed = changedFields(before, row, ENTRY_FIELDS);
        await recordWrite(
          trx, actor,
          {
            entityType: 'entry', action: 'updated', entityId: id, entityName: row.title, projectId: row.projectId,
            metadata: { changedFields: changed },
          },
          updateEvents(before, row, changed),
        );
        return presentEntry(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await db.transaction(async (trx) => {
        const row = await loadVisibleEntry(trx, actor, id, 'update');
        await trx('entries').where({ id }).del();
        await recordWrite(trx, actor, {
          entityType: 'entry', action: 'deleted', entityId: id, entityName: row.title as string, projectId: row.projectId as string,
        });
      });
    },
  };
}

/** assignedToId must be a user of the organization; releaseId a release of the same project (else 400). */
async function checkReferences(trx: Knex, actor: Actor, projectId: string, values: Record<string, unknown>): Promise<void> {
  const problems: { path: string; message: string }[] = [];
  const assignee = values.assignedToId;
  if (assignee !== undefined && assignee !== null) {
    const user = isUuid(assignee) && (await trx('users').where({ id: assignee, organizationId: actor.organizationId }).first('id'));
    if (!user) problems.push({ path: '/assignedToId', message: 'must be the id of a user of this organization' });
  }
  const release = values.releaseId;
  if (release !== undefined && release !== null) {
    const found = isUuid(release) && (await trx('releases').where({ id: release, projectId }).first('id'));
    if (!found) problems.push({ path: '/releaseId', message: 'must be the id of a release of this project' });
  }
  if (problems.length) throw validation(problems);
}
