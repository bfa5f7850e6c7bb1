import type { JsonObject } from '@bufbuild/protobuf';
import type { ValidateFunction } from 'ajv';
import type { ActorClaims } from './actor-claims.ts';
import { DomainError, missingPermission, scopeViolation, validation } from './errors.ts';
import { createAjv, queryPath, toProblems } from './json-schema.ts';

/**
 * What an operation demands of the API key it runs for: a permission, an organization-wide key,
 * a role of the key's creating user; and of its request: the JSON Schemas its `body` and `query`
 * Structs meet. The gateway's route table is their one declaration; the gateway checks them
 * before a route runs, and each backend checks them again on the operation the route calls (the
 * generated OPERATION_RULES of @cluster/contracts), so that a call a backend receives proves its
 * own authorization and input, whoever relayed it (docs/security.md).
 */
export interface OperationRule {
  permission?: string;
  orgKeyOnly?: boolean;
  roles?: readonly string[];
  /** The schema of the request's `body` Struct: the route's body schema. */
  body?: object;
  /** The schema of the request's `query` Struct: the route's query schema (of a list: its filters). */
  query?: object;
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

// The backend checks without coercion or defaults: the gateway sends the values it validated, already
// typed, and a handler reads the Struct as it came. Each schema is compiled once, on its first call.
const ajv = createAjv();
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/**
 * Refuses a request whose `body` or `query` Struct does not meet the rule's schema, with the gateway's
 * answer: 400 validation_error listing every problem (JSON pointers into the body; a query parameter
 * by its name). An absent Struct is the empty object, as handlers read it (`bodyOf`).
 */
export function enforceInput(rule: OperationRule, message: { body?: JsonObject; query?: JsonObject }): void {
  for (const [schema, value, toPath] of [
    [rule.body, message.body, (pointer: string) => pointer],
    [rule.query, message.query, queryPath],
  ] as const) {
    if (!schema) continue;
    const fn = validatorOf(schema);
    if (!fn(value ?? {})) throw validation(toProblems(fn.errors).map((p) => ({ path: toPath(p.path), message: p.message })));
  }
}
