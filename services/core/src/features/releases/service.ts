import { RELEASE_FILTERS, RELEASE_WRITABLE_FIELDS, type ReleaseCreateBody, type ReleaseUpdateBody } from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { notFound, requireActor, validation, type PageArgs, presentPage } from '@cluster/platform';
import { assertVisible } from '../../shared/access.ts';
import { changedFields, pickFields } from '../../shared/fields.ts';
import { apiWrite, type ActorEvent } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { releaseCreatedEvent, releasedEvent, releaseStatusChangedEvent } from './events.ts';
import { presentRelease } from './presenter.ts';
import type { ReleaseFilter, ReleaseRow } from './store.ts';

/** A calendar date of a body (the contract accepts YYYY-MM-DD for start and end) as midnight UTC. */
function datesAsUtc(values: Record<string, unknown>): Record<string, unknown> {
  for (const field of ['startDate', 'endDate'] as const) {
    const v = values[field];
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) values[field] = `${v}T00:00:00.000Z`;
  }
  return values;
}

/** endDate may not lie before startDate (checked on the merged values of an update too). */
function checkDates(startDate: unknown, endDate: unknown): void {
  const start = new Date(startDate as string | Date).getTime();
  const end = new Date(endDate as string | Date).getTime();
  if (end < start) throw validation([{ path: '/endDate', message: 'must not be before startDate' }]);
}

/**
 * The first move into `released` marks the release (so that release.released never
 * fires twice) and sets releasedAt unless already set or given: to the earlier
 * value, or else (`releasedNow`) to the transaction's time. `released`: it is that move.
 */
function firstRelease(
  values: Record<string, unknown>,
  before: ReleaseRow | undefined,
): { released: boolean; releasedNow: boolean } {
  const status = values.status ?? before?.status;
  if (status !== 'released' || before?.releasedEventSent) return { released: false, releasedNow: false };
  if (before && before.status === 'released') return { released: false, releasedNow: false };
  values.releasedEventSent = true;
  if (values.releasedAt !== undefined && values.releasedAt !== null) return { released: true, releasedNow: false };
  const earlier = before?.releasedAt;
  if (earlier !== undefined && earlier !== null) {
    values.releasedAt = earlier;
    return { released: true, releasedNow: false };
  }
  delete values.releasedAt;
  return { released: true, releasedNow: true };
}

/** Releases of a project: release.created, release.status_changed on every move, release.released once. */
export function createReleaseService(stores: Stores) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, filters: Record<string, unknown>, page: PageArgs) {
      const actor = requireActor(actorIn);
      await projectInScope(stores.projects, actor, projectId);
      const filter: ReleaseFilter = {};
      for (const f of RELEASE_FILTERS) if (typeof filters[f] === 'string') filter[f] = filters[f];
      return presentPage(await stores.releases.list(projectId, filter, page), presentRelease);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentRelease(assertVisible(actor, await stores.releases.find(id), 'release'));
    },

    async create(actorIn: Actor | undefined, projectId: string, body: ReleaseCreateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        await projectInScope(tx.projects, actor, projectId);
        const values = datesAsUtc(pickFields(body, RELEASE_WRITABLE_FIELDS));
        checkDates(values.startDate, values.endDate);
        const { released, releasedNow } = firstRelease(values, undefined);
        const row = await tx.releases.insert(
          { ...values, projectId, organizationId: actor.organizationId, creatorId: actor.userId || null },
          { releasedNow },
        );
        const events = [releaseCreatedEvent(row)];
        if (released) events.push(releasedEvent(row));
        await tx.record(
          apiWrite(
            actor,
            { entityType: 'release', action: 'created', entityId: row.id, entityName: row.name, projectId },
            events,
          ),
        );
        return presentRelease(row);
      });
    },

    async update(actorIn: Actor | undefined, id: string, body: ReleaseUpdateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = assertVisible(actor, await tx.releases.find(id, { lock: 'update' }), 'release');
        const values = datesAsUtc(pickFields(body, RELEASE_WRITABLE_FIELDS));
        checkDates(values.startDate ?? before.startDate, values.endDate ?? before.endDate);
        const { released, releasedNow } = firstRelease(values, before);
        const row = Object.keys(values).length ? await tx.releases.update(id, values, { releasedNow }) : before;
        if (!row) throw notFound('release');
        const changed = changedFields(before, row, RELEASE_WRITABLE_FIELDS);
        const events: ActorEvent[] = [];
        if (changed.includes('status')) events.push(releaseStatusChangedEvent(before, row));
        if (released) events.push(releasedEvent(row));
        await tx.record(
          apiWrite(
            actor,
            {
              entityType: 'release',
              action: 'updated',
              entityId: id,
              entityName: row.name,
              projectId: row.projectId,
              metadata: { changedFields: changed },
            },
            events,
          ),
        );
        return presentRelease(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = assertVisible(actor, await tx.releases.find(id, { lock: 'update' }), 'release');
        await tx.releases.remove(id);
        await tx.record(
          apiWrite(actor, {
            entityType: 'release',
            action: 'deleted',
            entityId: id,
            entityName: row.name,
            projectId: row.projectId,
          }),
        );
      });
    },
  };
}
