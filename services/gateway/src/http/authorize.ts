import { isRole } from '@cluster/contracts';
import { DomainError, missingPermission, scopeViolation } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { RouteContract } from './route.ts';

/**
 * Pipeline step 4, after the rate limit: may this actor call this route? In order: the
 * organization's v1 switch (403 forbidden), the key's scope (403 scope_violation on an
 * organization-wide route), the route's permission (403 forbidden naming it), then the role
 * of the key's creating user (403 forbidden naming the roles, platform_admin left unsaid).
 */
export function authorize(
  route: Pick<RouteContract, 'orgKeyOnly' | 'permission' | 'roles'>,
  actor: Pick<Actor, 'scope' | 'permissions' | 'role'>,
  apiEnabled: boolean,
): void {
  if (apiEnabled === false) throw new DomainError('forbidden', 'the v1 API is disabled for this organization');
  if (route.orgKeyOnly && actor.scope === 'project') throw scopeViolation('this path needs an organization-scoped key');
  if (route.permission && !actor.permissions.includes(route.permission)) throw missingPermission(route.permission);
  if (route.roles && !(isRole(actor.role) && route.roles.includes(actor.role))) {
    throw new DomainError('forbidden', `requires role ${route.roles.filter((r) => r !== 'platform_admin').join(' or ')}`);
  }
}
