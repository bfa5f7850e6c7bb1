import { randomUUID } from 'node:crypto';
import { ENTRY_FILTERS, ENTRY_WRITABLE_FIELDS, type EntryCreateBody, type EntryUpdateBody } from '@cluster/contracts';
import { isUuid } from '@cluster/db';
import type { Actor } from '@cluster/proto';
import { notFound, requireActor, validation, type PageArgs, presentPage } from '@cluster/platform';
import { changedFields, pickFields } from '../../shared/fields.ts';
import { apiWrite } from '../../shared/write.ts';
import type { Stores } from '../../stores.ts';
import { projectInScope } from '../projects/scope.ts';
import { createEvents, updateEvents } from './events.ts';
import { presentEntry } from './presenter.ts';
import { visibleEntry } from './scope.ts';
import type { EntryFilter, EntryRow, NewEntry } from './store.ts';

/**
 * A new entry's values unless its body gives them (the columns' defaults too): a create
 * writes every column, and its events carry the status.
 */
const NEW_ENTRY_DEFAULTS = { status: 'open', priority: 'medium' };

/** Whether a body names another record (assignedToId, releaseId): then checkReferences has to look them up. */
function hasReferences(values: Record<string, unknown>): boolean {
  return ['assignedToId', 'releaseId'].some((f) => values[f] !== undefined && values[f] !== null);
}

/**
 * assignedToId must be a user of the organization; releaseId a release of the same project (else 400).
 * Only after `projectId` is known to be visible to the actor (docs/decisions.md, "Tenant isolation"):
 * another organization's id and a random id then both answer this 400.
 */
async function checkReferences(stores: Stores, actor: Actor, projectId: string, values: Record<string, unknown>): Promise<void> {
  const problems: { path: string; message: string }[] = [];
  const assignee = values.assignedToId;
  if (assignee !== undefined && assignee !== null) {
    const user = typeof assignee === 'string' && (await stores.entries.isOrganizationUser(actor.organizationId, assignee));
    if (!user) problems.push({ path: '/assignedToId', message: 'must be the id of a user of this organization' });
  }
  const release = values.releaseId;
  if (release !== undefined && release !== null) {
    const found = typeof release === 'string' && (await stores.releases.find(release))?.projectId === projectId;
    if (!found) problems.push({ path: '/releaseId', message: 'must be the id of a release of this project' });
  }
  if (problems.length) throw validation(problems);
}

/**
 * Entries of a project. Numbers come from projects.entryCounter, bumped under the
 * project row lock in the creating statement (EntryStore.create). Rules only; SQL is in the store.
 */
export function createEntryService(stores: Stores) {
  return {
    async list(actorIn: Actor | undefined, projectId: string, filters: Record<string, unknown>, page: PageArgs) {
      const actor = requireActor(actorIn);
      await projectInScope(stores.projects, actor, projectId);
      const filter: EntryFilter = {};
      for (const f of ENTRY_FILTERS) if (typeof filters[f] === 'string') filter[f] = filters[f];
      return presentPage(await stores.entries.list(projectId, filter, page), presentEntry);
    },

    async get(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      return presentEntry(await visibleEntry(stores.entries, actor, id));
    },

    async create(actorIn: Actor | undefined, projectId: string, body: EntryCreateBody) {
      const actor = requireActor(actorIn);
      if (!isUuid(projectId)) throw notFound('project');
      const values = pickFields(body, ENTRY_WRITABLE_FIELDS);
      // The project first, then the references: another organization's project is 404 whatever the body
      // names (no existence oracle). A project key naming another project: 404 if the organization has no
      // such project, else 403. Without references an org key's create stays one statement: the store
      // writes nothing outside the organization (404 below).
      if ((actor.scope === 'project' && actor.scopedProjectId !== projectId) || hasReferences(values))
        await projectInScope(stores.projects, actor, projectId);
      await checkReferences(stores, actor, projectId, values);
      const entry: NewEntry = {
        ...NEW_ENTRY_DEFAULTS,
        ...values,
        id: randomUUID(),
        projectId,
        organizationId: actor.organizationId,
        creatorId: actor.userId || null,
      };
      // One statement, no transaction: the store writes the entry, its audit record and its events, or nothing.
      const row = await stores.entries.create(
        entry,
        apiWrite(
          actor,
          { entityType: 'entry', action: 'created', entityId: entry.id, entityName: String(entry.title), projectId },
          createEvents(entry),
        ),
      );
      if (!row) throw notFound('project');
      return presentEntry(row);
    },

    async update(actorIn: Actor | undefined, id: string, body: EntryUpdateBody) {
      const actor = requireActor(actorIn);
      return stores.transaction(async (tx) => {
        const before = await visibleEntry(tx.entries, actor, id, 'update');
        const values = pickFields(body, ENTRY_WRITABLE_FIELDS);
        await checkReferences(tx, actor, before.projectId, values);
        // A move to another status stamps statusChangedAt, unless the body sets it.
        const statusChangedNow = 'status' in values && values.status !== before.status && !('statusChangedAt' in values);
        const row = Object.keys(values).length ? await tx.entries.update(id, values, { statusChangedNow }) : before;
        const changed = changedFields(before, row, ENTRY_WRITABLE_FIELDS);
        await tx.record(
          apiWrite(
            actor,
            {
              entityType: 'entry',
              action: 'updated',
              entityId: id,
              entityName: row.title,
              projectId: row.projectId,
              metadata: { changedFields: changed, ...approvalChanges(before, row, changed) },
            },
            updateEvents(before, row, changed),
          ),
        );
        return presentEntry(row);
      });
    },

    async remove(actorIn: Actor | undefined, id: string) {
      const actor = requireActor(actorIn);
      await stores.transaction(async (tx) => {
        const row = await visibleEntry(tx.entries, actor, id, 'update');
        await tx.entries.remove(id);
        await tx.record(
          apiWrite(actor, {
            entityType: 'entry',
            action: 'deleted',
            entityId: id,
            entityName: row.title,
            projectId: row.projectId,
          }),
        );
      });
    },
  };
}

/** The approval fields whose change the audit trail records with both values: release evidence reads the decisions from it. */
export const APPROVAL_FIELDS = ['approvalStatus', 'costApprovalStatus'] as const;

/** `{approvals: {field: {from, to}}}` for the approval fields an update changed; nothing when it changed none. */
function approvalChanges(before: EntryRow, after: EntryRow, changed: readonly string[]) {
  const approvals = Object.fromEntries(
    APPROVAL_FIELDS.filter((f) => changed.includes(f)).map((f) => [f, { from: before[f] ?? null, to: after[f] ?? null }]),
  );
  return Object.keys(approvals).length ? { approvals } : {};
}
