import type { Actor } from '@cluster/proto';
import { notFound, scopeViolation } from '@cluster/platform';

/**
 * Tenant and key-scope rules shared by every feature (pure: stores load the rows).
 * Another organization's record is 404, never 403: existence is not disclosed.
 */

/** Project ids a key may see: all of its organization (null) or its one project. */
export function visibleProjectId(actor: Actor): string | null {
  return actor.scope === 'project' ? (actor.scopedProjectId ?? null) : null;
}

/**
 * The checks on a project addressed by path (/projects/:id/...), loaded with the
 * organization in its filter: missing is 404, another project of a
 * project-scoped key is 403 scope_violation.
 */
export function assertProjectInScope<T>(actor: Actor, projectId: string, project: T | undefined): T {
  if (!project) throw notFound('project');
  if (actor.scope === 'project' && actor.scopedProjectId !== projectId) {
    throw scopeViolation('this key is scoped to another project');
  }
  return project;
}

/**
 * Checks a resource addressed by id: it must belong to the actor's organization
 * and, for a project-scoped key, to its project; otherwise 404.
 */
export function assertVisible<T extends { organizationId?: unknown; projectId?: unknown }>(
  actor: Actor,
  row: T | undefined,
  what: string,
): T {
  if (!row || row.organizationId !== actor.organizationId) throw notFound(what);
  if (actor.scope === 'project' && row.projectId !== actor.scopedProjectId) throw notFound(what);
  return row;
}
