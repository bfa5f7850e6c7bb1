import type { Actor } from '@cluster/proto';
import { DomainError, notFound, scopeViolation } from '@cluster/platform';
import type { Knex } from '@cluster/db';
import { isUuid } from '@cluster/db';

export type { Actor };

/** The actor, or a 401 when a caller forgot it (an internal bug, never a client's). */
export function requireActor(actor: Actor | undefined): Actor {
  if (!actor?.organizationId) throw new DomainError('unauthorized', 'no actor on the call');
  return actor;
}

/** Project ids a key may see: all of its organization (null) or its one project. */
export function visibleProjectId(actor: Actor): string | null {
  return actor.scope === 'project' ? (actor.scopedProjectId ?? null) : null;
}

/**
 * Loads a project the actor addresses by path (/projects/:id/...). Another
 * organization's project, or an unknown id: 404. A project-scoped key on another
 * project of its organization: 403 scope_violation.
 */
export async function projectInScope(db: Knex, actor: Actor, projectId: string): Promise<Record<string, unknown>> {
  if (!isUuid(projectId)) throw notFound('project');
  const project = await db('projects').where({ id: projectId, organizationId: actor.organizationId }).first();
  assertProjectInScope(actor, projectId, project);
  return project;
}

/**
 * The checks of projectInScope on a project row the caller already loaded (or
 * locked) with the organization in its filter: missing is 404, another project
 * of a project-scoped key is 403 scope_violation.
 */
export function assertProjectInScope(actor: Actor, projectId: string, project: unknown): void {
  if (!project) throw notFound('project');
  if (actor.scope === 'project' && actor.scopedProjectId !== projectId) {
    throw scopeViolation('this key is scoped to another project');
  }
}

/**
 * Checks a resource addressed by id: it must belong to the actor's organization
 * and, for a project-scoped key, to its project; otherwise 404 (existence is not disclosed).
 */
export function assertVisible(actor: Actor, row: { organizationId?: unknown; projectId?: unknown } | undefined, what: string): void {
  if (!row || row.organizationId !== actor.organizationId) throw notFound(what);
  if (actor.scope === 'project' && row.projectId !== actor.scopedProjectId) throw notFound(what);
}

/** Audit metadata of every write made through an API key. */
export function auditMetadata(actor: Actor, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { actorType: 'api_key', apiKeyId: actor.apiKeyId, requestId: actor.requestId || undefined, ...extra };
}

/**
 * Rows of a tenant table the actor may list: its organization's, narrowed to the
 * project of the path (checked with projectInScope) or else to a project key's project.
 * (Wrapped in an object: a query builder is thenable, so awaiting it would run it.)
 */
export async function visibleRows(db: Knex, table: string, actor: Actor, projectId?: string): Promise<{ query: Knex.QueryBuilder }> {
  const query = db(table).where({ organizationId: actor.organizationId });
  if (projectId) {
    await projectInScope(db, actor, projectId);
    return { query: query.andWhere({ projectId }) };
  }
  const scoped = visibleProjectId(actor);
  return { query: scoped ? query.andWhere({ projectId: scoped }) : query };
}
