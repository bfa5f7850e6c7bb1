import type { Knex } from '@cluster/db';
import type { JsonObject } from '@bufbuild/protobuf';
import { notFound, validation } from '@cluster/platform';
import { type Actor, projectInScope, requireActor } from '../../lib/actor.ts';
import { changedFields, pickColumns, toJson } from '../../lib/json.ts';
import { paginate } from '../../lib/list.ts';
import { type DomainEvent, recordWrite } from '../../outbox/record.ts';
import { loadVisible } from '../entries/lookup.ts';

/**
 * Every writable release column. The body's `updatedAt` is accepted by the schema
 * and ignored: the server keeps updatedAt (see docs/decisions-entries.md).
 */
export const RELEASE_FIELDS = [
  'name', 'description', 'version', 'status', 'type', 'startDate', 'endDate', 'releasedAt',
  'targetAudience', 'riskLevel', 'rolloutPercentage', 'releaseNotes', 'retrospectiveNotes', 'dependsOnReleaseId',
  'lowCost', 'mediumCost', 'highCost', 'committedCost', 'costUpdatedAt', 'costSource', 'cascadeAdvance',
] as const;
const FILTERS = ['status', 'type'] as const;

/** What leaves the core for a release: every field but the internal once-only flag. */
export function presentRelease(row: Record<string, unknown>): JsonObject {
  return toJson(row, ['organizationId', 'releasedEventSent']);
}

function releaseEvent(eventName: string, row: Record<string, unknown>, payload: Record<string, unknown>): DomainEvent {
  return { eventName, entityType: 'release', entityId: row.id as string, projectId: row.projectId as string, payload };
}

const releasedEvent = (row: Record<string, unknown>) => releaseEvent('release.released', row, {
  releaseId: row.id, projectId: row.projectId, name: row.name, status: 'released', version: row.version,
  releasedAt: (row.releasedAt as Date).toISOString(),
});

/** endDate may not lie before startDate (checked on the merged values of an update too). */
function checkDates(startDate: unknown, endDate: unknown): void {
  const start = new Date(startDate as string | Date).getTime();
  const end = new Date(endDate as string | Date).getTime();
  if (end < start) throw validation([{ path: '/endDate', message: 'must not be before startDate' }]);
}

/**
 * The first move into `released` sets releasedAt (unless already set or given)
 * and marks the release so that release.released never fires twice.
 */
function applyFirstRelease(trx: Knex, values: Record<string, unknown>, before: Record<string, unknown> | undefined): boolean {
  const status = values.status ?? before?.status;
  if (status !== 'released' || before?.releasedEventSent) return false;
  if (before && before.status === 'released') return false;
  values.releasedEventSent = true;
  if (values.releasedAt === undefined || values.releasedAt === null) values.releasedAt = before?.releasedAt ?? trx.fn.now();
  return true;
}

/** Releases of a project: release.created, release.status_changed on every move, release.released once. */
export function createReleaseService(db: Knex) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, filters: Record<string, unknown>, page: number, pageSize: number) {
      const actor = requireActor(actorIn);
      await projectInScope(db, actor, projectId);
      const q = db('releases').where({ projectId });
      for (const f of FILTERS) if (typeof filters[f] === 'string') q.andWhere(f, filters[f] as string);
      return paginate(q, page, pageSize, presentRelease);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentRelease(await loadVisible(db, actor, 'releases', id, 'release'));
    },

    async create(actorIn: Actor | undefined, projectId: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        await projectInScope(trx, actor, projectId);
        const values = pickColumns(body, RELEASE_FIELDS);
        checkDates(values.startDate, values.endDate);
        const released = applyFirstRelease(trx, values, undefined);
        const [row] = await trx('releases')
          .insert({ ...values, projectId, organizationId: actor.organizationId, creatorId: actor.userId || null })
          .returning('*');
        const events = [releaseEvent('release.created', row, {
          releaseId: row.id, projectId, name: row.name, status: row.status, type: row.type, version: row.version,
          startDate: (row.startDate as Date).toISOString(), endDate: (row.endDate as Date).toISOString(),
        })];
        if (released) events.push(releasedEvent(row));
        await recordWrite(
          trx, actor,
          { entityType: 'release', action: 'created', entityId: row.id, entityName: row.name, projectId },
          events,
        );
        return presentRelease(row);
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: Record<string, unknown>) {
      const actor = requireActor(actorIn);
      return db.transaction(async (trx) => {
        const before = await loadVisible(trx, actor, 'releases', id, 'release', 'update');
        const values = pickColumns(body, RELEASE_FIELDS);
        checkDates(values.startDate ?? before.startDate, values.endDate ?? before.endDate);
        const released = applyFirstRelease(trx, values, before);
        const [row] = Object.keys(values).length
          ? await trx('releases').where({ id }).update({ ...values, updatedAt: trx.fn.now() }).returning('*')
          : [before];
        if (!row) throw notFound('release');
        const changed = changedFields(before, row, RELEASE_FIELDS);
        const events: DomainEvent[] = [];
        if (changed.includes('status')) {
          events.push(releaseEvent('release.status_changed', row, {
            releaseId: id, projectId: row.projectId, name: row.name, status: row.status,
            previousStatus: before.status, newStatus: row.status,
          }));
        }
        if (released) events.push(releasedEvent(row));
        await recordWrite(
          trx, actor,
          {
            entityType: 'release', action: 'updated', entityId: id, entityName: row.name, projectId: row.projectId,
            metadata: { changedFields: changed },
          },
          events,
        );
        return presentRelease(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await db.transaction(async (trx) => {
        const row = await loadVisible(trx, actor, 'releases', id, 'release', 'update');
        await trx('releases').where({ id }).del();
        await recordWrite(trx, actor, {
          entityType: 'release', action: 'deleted', entityId: id, entityName: row.name as string, projectId: row.projectId as string,
        });
      });
    },
  };
}
