import type { DescMethod, DescService, JsonObject } from '@bufbuild/protobuf';
import type { ValidateFunction } from 'ajv';
import { OPERATIONS, type Operation } from '@cluster/contracts';
import * as generated from '@cluster/proto';
import type { ActorClaims } from './actor-claims.ts';
import { DomainError, missingPermission, scopeViolation, validation } from './errors.ts';
import { createAjv, queryPath, toProblems } from './json-schema.ts';

/**
 * What an operation demands of the API key it runs for: a permission, an organization-wide key,
 * a role of the key's creating user; and of its request: the JSON Schemas its `body` and `query`
 * Structs meet. The operation table (OPERATIONS of @cluster/contracts) is their one declaration; the
 * gateway checks them before an operation runs, and each backend checks them again on the RPC the
 * operation calls (OPERATION_RULES, folded from the table), so that a call a backend receives proves
 * its own authorization and input, whoever relayed it (docs/security.md).
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

/** Whether the rule admits the actor (enforceRule without the reason): what the tool-protocol endpoint lists for a key. */
export function allows(rule: OperationRule, actor: Pick<ActorClaims, 'scope' | 'permissions' | 'role'>): boolean {
  try {
    enforceRule(rule, actor);
    return true;
  } catch {
    return false;
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

const isService = (value: unknown): value is DescService =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'service';

/** Every RPC of the generated descriptors (@cluster/proto), by `package.Service/Method`. */
export const RPC_METHODS: ReadonlyMap<string, DescMethod> = new Map(
  (Object.values(generated) as unknown[])
    .filter(isService)
    .flatMap((service) => service.methods.map((m) => [`${service.typeName}/${m.name}`, m] as const)),
);

/** The RPC an operation names, from the generated descriptors; throws for a name no descriptor has. */
export function rpcOf(operation: Pick<Operation, 'method' | 'path' | 'operation'>): DescMethod | undefined {
  if (!operation.operation) return undefined;
  const method = RPC_METHODS.get(operation.operation);
  if (!method) throw new Error(`${operation.method} ${operation.path}: no generated RPC is ${operation.operation}`);
  return method;
}

/** Whether the request message of `method` carries `field` (`body`, `query`) as a JSON Struct. */
function carriesStruct(method: DescMethod, field: 'body' | 'query'): boolean {
  const f = method.input.fields.find((x) => x.localName === field);
  return f?.fieldKind === 'message' && f.message.typeName === 'google.protobuf.Struct';
}

/** The one schema that operations sharing an RPC give `field`, found by `same`; throws when they differ. */
function sharedSchema(
  rpc: string,
  shared: readonly Operation[],
  field: 'body' | 'query',
  same: (a: object | undefined, b: object | undefined) => boolean,
): object | undefined {
  const [first] = shared.map((o) => o[field]);
  if (shared.some((o) => !same(o[field], first)))
    throw new Error(
      `${rpc}: its operations have different ${field} schemas (${shared.map((o) => `${o.method} ${o.path}`).join(', ')})`,
    );
  return first;
}

const sameJson = (a: object | undefined, b: object | undefined) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The rules each backend enforces on the RPCs of the operation table, by `package.Service/Method`.
 * Operations sharing an RPC must agree on its permission; the backend then demands only what every
 * one of them demands: an organization-wide key when all do, roles when all name the same ones. They
 * must share their body schema (the same one) and query schema (equal ones): the backend checks the
 * request's `body` and `query` Structs against them, where the RPC's request carries them as Structs
 * (a list's query: its filters, which its ListQuery admits).
 */
export function operationRules(operations: readonly Operation[]): Record<string, OperationRule> {
  const byRpc = new Map<string, { method: DescMethod; shared: Operation[] }>();
  for (const operation of operations) {
    const method = rpcOf(operation);
    if (!method || !operation.operation) continue;
    const entry = byRpc.get(operation.operation) ?? { method, shared: [] };
    entry.shared.push(operation);
    byRpc.set(operation.operation, entry);
  }
  const rules: Record<string, OperationRule> = {};
  for (const [rpc, { method, shared }] of [...byRpc].sort(([a], [b]) => a.localeCompare(b))) {
    const permissions = new Set(shared.map((o) => o.permission));
    if (permissions.size > 1)
      throw new Error(`${rpc}: its operations need different permissions (${[...permissions].join(', ')})`);
    const [permission] = permissions;
    const roles = new Set(shared.map((o) => o.roles?.join(',')));
    const [firstRoles] = shared.map((o) => o.roles);
    const body = sharedSchema(rpc, shared, 'body', (a, b) => a === b);
    const query = sharedSchema(rpc, shared, 'query', sameJson);
    rules[rpc] = {
      ...(permission ? { permission } : {}),
      ...(shared.every((o) => o.orgKeyOnly) ? { orgKeyOnly: true } : {}),
      ...(roles.size === 1 && firstRoles ? { roles: firstRoles } : {}),
      ...(body && carriesStruct(method, 'body') ? { body } : {}),
      ...(query && carriesStruct(method, 'query') ? { query } : {}),
    };
  }
  return rules;
}

/** The rules of the operation table, folded once when a process starts (operationRules of OPERATIONS). */
export const OPERATION_RULES: Readonly<Record<string, OperationRule>> = operationRules(OPERATIONS);
