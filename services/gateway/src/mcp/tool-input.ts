import type { TSchema } from '@sinclair/typebox';
import { FIELD_DESCRIPTIONS } from '@cluster/contracts';
import { resourceOfParam, type RouteDef } from '../http/route.ts';

/** A route's path parameter as a tool argument: `:id` of `/time-entries/:id` is `timeEntryId`. */
export function argumentOfParam(path: string, param: string): string {
  if (param !== 'id') return param;
  const resource = resourceOfParam(path, param) ?? 'resource';
  return `${resource.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}Id`;
}

/** How a tool's flat arguments map back onto the route's request: path params, query and body. */
export interface ToolInput {
  /** The JSON Schema the tool advertises (type object). */
  schema: Record<string, unknown>;
  /** Splits validated arguments into the route's params, query and body. */
  split(args: Record<string, unknown>): { params: Record<string, string>; query: Record<string, unknown>; json: unknown };
}

const plain = (s: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(s)) as Record<string, unknown>;

/** A property's schema with a description: its own, else the field's (FIELD_DESCRIPTIONS). */
function described(name: string, schema: Record<string, unknown>): Record<string, unknown> {
  if (schema.description || !FIELD_DESCRIPTIONS[name]) return schema;
  return { ...schema, description: FIELD_DESCRIPTIONS[name] };
}

/**
 * The input schema of a route's tool, generated from the schemas the route validates with: its
 * path parameters (ids, required), its query's properties and its body's properties, side by side
 * in one object, each described. A body field the server sets (`readOnly`: accepted in REST bodies
 * and ignored) is no argument. A name in two places is a bug of the tool table, refused when the
 * server starts.
 */
export function toolInput(route: RouteDef): ToolInput {
  const params = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ param: m[1], arg: argumentOfParam(route.path, m[1]) }));
  const query = route.query?.properties ?? {};
  const bodySchema = route.body ? plain(route.body) : undefined;
  const body = (bodySchema?.properties ?? {}) as Record<string, unknown>;
  const properties: Record<string, unknown> = {};
  const place = (name: string, schema: unknown) => {
    if (name in properties) throw new Error(`tool for ${route.method} ${route.path}: argument ${name} is defined twice`);
    properties[name] = schema;
  };
  for (const { param, arg } of params)
    place(arg, { type: 'string', format: 'uuid', description: `The ${param === 'id' ? arg.replace(/Id$/, '') : param} id` });
  for (const [name, schema] of Object.entries(query)) place(name, described(name, plain(schema)));
  for (const [name, schema] of Object.entries(body) as [string, Record<string, unknown>][])
    if (schema.readOnly !== true) place(name, described(name, schema));
  // Required exactly as the route's validation requires: every path id, and the query's and the body's required fields.
  const required = [
    ...params.map((p) => p.arg),
    ...(route.query?.required ?? []),
    ...((bodySchema?.required as string[] | undefined) ?? []),
  ];
  return {
    schema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
    split(args) {
      const out = { params: {} as Record<string, string>, query: {} as Record<string, unknown>, json: undefined as unknown };
      const fields: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(args)) {
        const p = params.find((x) => x.arg === name);
        if (p) out.params[p.param] = String(value);
        else if (name in query) out.query[name] = value;
        else fields[name] = value;
      }
      if (route.body) out.json = fields;
      return out;
    },
  };
}
