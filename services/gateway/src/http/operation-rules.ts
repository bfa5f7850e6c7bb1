import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind as KIND, type TSchema } from '@sinclair/typebox';
import * as contracts from '@cluster/contracts';
import { ListQuery } from '@cluster/contracts';
import type { OperationRule } from '@cluster/platform';
import { namedSchemas } from './openapi.ts';
import type { RouteDef } from './route.ts';

/** An operation's rule as the route table declares it: its schemas are the route's TypeBox schemas. */
export type RouteOperationRule = OperationRule & { body?: TSchema; query?: TSchema };

/** Whether the request message of a route's operation carries `field` (`body`, `query`) as a JSON Struct. */
function carriesStruct(route: RouteDef, field: 'body' | 'query'): boolean {
  const method = route.service?.methods.find((m) => `${route.service?.typeName}/${m.name}` === route.operation);
  const f = method?.input.fields.find((x) => x.localName === field);
  return f?.fieldKind === 'message' && f.message.typeName === 'google.protobuf.Struct';
}

/** The one schema that routes sharing an operation give `field`, found by `same`; throws when they differ. */
function sharedSchema(
  operation: string,
  shared: readonly RouteDef[],
  field: 'body' | 'query',
  same: (a: TSchema | undefined, b: TSchema | undefined) => boolean,
): TSchema | undefined {
  const [first] = shared.map((r) => r[field]);
  if (shared.some((r) => !same(r[field], first)))
    throw new Error(
      `${operation}: its routes have different ${field} schemas (${shared.map((r) => `${r.method} ${r.path}`).join(', ')})`,
    );
  return shared.every((r) => carriesStruct(r, field)) ? first : undefined;
}

const sameJson = (a: TSchema | undefined, b: TSchema | undefined) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The rules each backend enforces on the operations the gateway calls, from the route table
 * (`npm run openapi` writes them to @cluster/contracts' OPERATION_RULES; a test keeps them
 * current). Routes sharing an operation must agree on its permission; the backend then demands
 * only what every one of them demands: an organization-wide key when all do, roles when all name
 * the same ones. They must share their body schema (the same one) and query schema (equal ones):
 * the backend checks the request's `body` and `query` Structs against them, where the operation's
 * request carries them as Structs (a list's query: its filters, which its ListQuery admits).
 */
export function operationRules(routes: readonly RouteDef[]): Record<string, RouteOperationRule> {
  const byOperation = new Map<string, RouteDef[]>();
  for (const route of routes)
    if (route.operation) byOperation.set(route.operation, [...(byOperation.get(route.operation) ?? []), route]);
  const rules: Record<string, RouteOperationRule> = {};
  for (const [operation, shared] of [...byOperation].sort(([a], [b]) => a.localeCompare(b))) {
    const permissions = new Set(shared.map((r) => r.permission));
    if (permissions.size > 1)
      throw new Error(`${operation}: its routes need different permissions (${[...permissions].join(', ')})`);
    const roles = new Set(shared.map((r) => r.roles?.join(',')));
    const [permission] = permissions;
    const [firstRoles] = shared.map((r) => r.roles);
    const body = sharedSchema(operation, shared, 'body', (a, b) => a === b);
    const query = sharedSchema(operation, shared, 'query', sameJson);
    rules[operation] = {
      ...(permission ? { permission } : {}),
      ...(shared.every((r) => r.orgKeyOnly) ? { orgKeyOnly: true } : {}),
      ...(roles.size === 1 && firstRoles ? { roles: firstRoles } : {}),
      ...(body ? { body } : {}),
      ...(query ? { query } : {}),
    };
  }
  return rules;
}

/**
 * The module of @cluster/contracts (relative to its src, `./resources/entries.ts`) that exports each
 * name, read from the sources in `srcDir`: the generated OPERATION_RULES imports its schemas from
 * them (not from the package's index, which exports it: no import cycle).
 */
export function contractModules(
  srcDir = path.resolve(import.meta.dirname, '../../../../packages/contracts/src'),
): Map<string, string> {
  const modules = new Map<string, string>();
  const files = readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'operation-rules.ts' && f !== 'index.ts')
    .sort();
  for (const file of files)
    for (const [, name] of readFileSync(path.join(srcDir, file), 'utf8').matchAll(/^export (?:const|function) (\w+)/gm))
      modules.set(name, `./${file.split(path.sep).join('/')}`);
  return modules;
}

/**
 * How the generated source names a schema of the route table: the export of @cluster/contracts it
 * is (`EntryCreate`), or the list query of an exported filter set (`ListQuery(EntryFilters)`).
 */
function schemaNamer(): (schema: TSchema, operation: string) => { expression: string; names: string[] } {
  const named = namedSchemas();
  const isSchema = (v: unknown): v is object => Boolean(v) && typeof v === 'object' && KIND in (v as object);
  // A filter set (EntryFilters): an exported record of schemas, not itself one.
  const filterSets = Object.entries(contracts).filter(
    ([name, value]) =>
      /^[A-Z]/.test(name) &&
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      !isSchema(value) &&
      Object.values(value).length > 0 &&
      Object.values(value).every(isSchema),
  );
  return (schema, operation) => {
    const name = named.get(schema);
    if (name) return { expression: name, names: [name] };
    if (sameJson(schema, ListQuery())) return { expression: 'ListQuery()', names: ['ListQuery'] };
    for (const [filters, value] of filterSets)
      if (sameJson(schema, ListQuery(value as Parameters<typeof ListQuery>[0])))
        return { expression: `ListQuery(${filters})`, names: ['ListQuery', filters] };
    throw new Error(`${operation}: a schema that is no export of @cluster/contracts (nor the ListQuery of one)`);
  };
}

/** OPERATION_RULES as the source file of @cluster/contracts holds it (Prettier's format, single quotes). */
export function operationRulesSource(routes: readonly RouteDef[], modules = contractModules()): string {
  const quote = (s: string) => `'${s}'`;
  const nameOf = schemaNamer();
  const imported = new Set<string>();
  const schema = (s: TSchema, operation: string) => {
    const { expression, names } = nameOf(s, operation);
    for (const n of names) imported.add(n);
    return expression;
  };
  const lines = Object.entries(operationRules(routes)).map(([operation, rule]) => {
    const fields = [
      rule.permission && `permission: ${quote(rule.permission)}`,
      rule.orgKeyOnly && 'orgKeyOnly: true',
      rule.roles && `roles: [${rule.roles.map(quote).join(', ')}]`,
      rule.body && `body: ${schema(rule.body, operation)}`,
      rule.query && `query: ${schema(rule.query, operation)}`,
    ].filter(Boolean);
    return `  ${quote(operation)}: {${fields.length ? ` ${fields.join(', ')} ` : ''}},`;
  });
  const byModule = new Map<string, string[]>();
  for (const name of [...imported].sort()) {
    const module = modules.get(name);
    if (!module) throw new Error(`${name}: no module of @cluster/contracts exports it`);
    byModule.set(module, [...(byModule.get(module) ?? []), name]);
  }
  const imports = [...byModule]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([module, names]) => `import { ${names.join(', ')} } from '${module}';`);
  return `// Generated by \`npm run openapi\` from the gateway's route table: do not edit. The rules each backend
// enforces on the operations the gateway calls for an API key (packages/platform operation-rules.ts):
// what the key needs, and the schemas of the request's body and query Structs.
import type { TSchema } from '@sinclair/typebox';
import type { Permission, Role } from './permissions.ts';
${imports.join('\n')}

/**
 * By \`Service/Method\`: the permission, organization-wide key and roles an operation demands, and
 * the schemas its body and query meet (the route's: the backend checks them again).
 */
export const OPERATION_RULES: Readonly<
  Record<string, { permission?: Permission; orgKeyOnly?: boolean; roles?: readonly Role[]; body?: TSchema; query?: TSchema }>
> = {
${lines.join('\n')}
};
`;
}
