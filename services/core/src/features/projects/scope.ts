import type { Actor } from '@cluster/proto';
import { assertProjectInScope } from '../../shared/access.ts';
import type { ProjectRow, ProjectStore } from './store.ts';

/**
 * Loads a project the actor addresses by path (/projects/:id/...): another
 * organization's project, or an unknown id, is 404; a project-scoped key on
 * another project of its organization is 403 scope_violation. Used by every
 * feature that lives under a project.
 */
export async function projectInScope(
  projects: Pick<ProjectStore, 'find'>,
  actor: Actor,
  projectId: string,
  opts: { lock?: boolean } = {},
): Promise<ProjectRow> {
  return assertProjectInScope(actor, projectId, await projects.find(actor.organizationId, projectId, opts));
}
