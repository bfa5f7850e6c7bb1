import { DomainError, enforceRule } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Operation } from '@cluster/contracts';

/**
 * Pipeline step 4, after the rate limit: may this actor call this route? In order: the
 * organization's v1 switch (403 forbidden), the key's scope (403 scope_violation on an
 * organization-wide route), the route's permission (403 forbidden naming it), then the role
 * of the key's creating user (403 forbidden naming the roles, platform_admin left unsaid).
 */
export function authorize(
  route: Pick<Operation, 'orgKeyOnly' | 'permission' | 'roles'>,
  actor: Pick<Actor, 'scope' | 'permissions' | 'role'>,
  apiEnabled: boolean,
): void {
  if (apiEnabled === false) throw new DomainError('forbidden', 'the v1 API is disabled for this organization');
  // The same rule the operation's backend enforces on its RPC (OPERATION_RULES of @cluster/platform).
  enforceRule(route, actor);
}
