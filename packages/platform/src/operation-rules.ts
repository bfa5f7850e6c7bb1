import type { ActorClaims } from './actor-claims.ts';
import { DomainError, missingPermission, scopeViolation } from './errors.ts';

/**
 * What an operation demands of the API key it runs for: a permission, an organization-wide key,
 * a role of the key's creating user. The gateway's route table is their one declaration; the
 * gateway checks them before a route runs, and each backend checks them again on the operation
 * the route calls (the generated OPERATION_RULES of @cluster/contracts), so that a call a
 * backend receives proves its own authorization, whoever relayed it (docs/security.md).
 */
export interface OperationRule {
  permission?: string;
  orgKeyOnly?: boolean;
  roles?: readonly string[];
}

/**
 * Refuses an actor the rule does not admit, in this order: 403 scope_violation (a project key on
 * an organization-wide operation), 403 forbidden naming the missing permission, 403 forbidden
 * naming the roles (platform_admin left unsaid).
 */
export function enforceRule(rule: OperationRule, actor: Pick<ActorClaims, 'scope' | 'permissions' | 'role'>): void {
  if (rule.orgKeyOnly && actor.scope === 'project') throw scopeViolation('this path needs an organization-scoped key');
  if (rule.permission && !actor.permissions.includes(rule.permission)) throw missingPermission(rule.permission);
  if (rule.roles && !rule.roles.includes(actor.role)) {
    throw new DomainError('forbidden', `requires role ${rule.roles.filter((r) => r !== 'platform_admin').join(' or ')}`);
  }
}
