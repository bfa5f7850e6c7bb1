import type { DescService } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import type { Actor } from '@cluster/proto';
import type { Permission, Role } from '@cluster/contracts';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { backendOf, type Backend, type ServiceClients } from '../clients.ts';
import { validateBody, validateQuery } from './validate.ts';

/** The methods of a generated service, by their names on its Connect client (`createEntry`). */
export type MethodOf<S extends DescService | undefined> = S extends DescService ? keyof Client<S> & string : never;
/** The Connect call of method `M` of service `S`: what a handler of a route with `service` and `rpc` is given. */
export type CallOf<S extends DescService | undefined, M> = S extends DescService
  ? M extends keyof Client<S>
    ? Client<S>[M]
    : undefined
  : undefined;

/**
 * What a handler sees: the authenticated actor, the input typed by the route's body and query
 * schemas, and `call`: the one backend operation the route declares (`service` and `rpc`).
 */
export interface RouteInput<B, Q, C = undefined> {
  actor: Actor;
  params: Record<string, string>;
  body: B;
  query: Q;
  call: C;
}

/** What the pipeline hands a route: the request as read, not yet validated. */
export interface RouteRequest {
  actor: Actor;
  params: Record<string, string>;
  /** The parsed JSON body; undefined when the request had none. */
  json: unknown;
  query: Record<string, unknown>;
  clients: ServiceClients;
}

/** What a handler answers: the status, the body, and headers to set. */
export interface RouteResult {
  status: number;
  /**
   * The answer as UTF-8 JSON bytes, written as they are: the backend's serialised resource or
   * page (`results.ts`), or a stored answer replayed. A handler that needs a field of a resource
   * parses the bytes itself.
   */
  body?: Uint8Array;
  headers?: Record<string, string>;
}

/**
 * A route's exposure on the tool-protocol endpoint (/mcp, docs/mcp.md): the tool's name, title and
 * description. Its input schema is the route's own validation (path ids, query and body), its hints
 * follow from the method (GET reads only; GET and PATCH are idempotent); `destructive` marks a write
 * that overwrites data already there (updates), which an assistant should confirm first.
 */
export interface ToolExposure {
  name: string;
  title: string;
  description: string;
  destructive?: boolean;
}

/** A route's contract: what authorization, validation, the OpenAPI document and the tool list read. */
export interface RouteContract {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /api/v1 with :params. */
  path: string;
  summary: string;
  tag: string;
  permission?: Permission;
  /** Role gate on the key's creating user, on top of the permission. */
  roles?: readonly Role[];
  /** Organization-wide route: a project-scoped key gets 403 scope_violation. */
  orgKeyOnly?: boolean;
  /**
   * The backend operation the handler calls: the service (its generated descriptor, from
   * @cluster/proto) and the method's name on its client (`createEntry`); neither for a route the
   * gateway answers itself. The handler's `call` is that method; `backend` and `operation` follow,
   * and the backend enforces the route's permission, scope and roles on that operation too
   * (docs/security.md, "Behind the edge").
   */
  service?: DescService;
  rpc?: string;
  /** Whether, and as which tool, the route is offered to AI assistants on /mcp; `false`: not a tool. */
  tool: ToolExposure | false;
  body?: TSchema;
  query?: TObject;
  response: { status: number; schema?: TSchema; description?: string };
}

/** What defineRoute takes: the contract and a handler typed by the body and query schemas and the service. */
export interface RouteSpec<
  B extends TSchema,
  Q extends TObject,
  S extends DescService | undefined,
  M extends MethodOf<S>,
> extends RouteContract {
  body?: B;
  query?: Q;
  service?: S;
  rpc?: M;
  handler: (input: RouteInput<Static<B>, Static<Q>, CallOf<S, M>>) => Promise<RouteResult>;
}

/** One public route of the table: its contract, and `run`, which validates the request and calls the handler. */
export interface RouteDef extends RouteContract {
  /**
   * The process the handler calls, from `service` (`gateway` without one). The core checks the key's
   * actor on every call; for any other, the gateway checks the key afresh before the route runs.
   */
  backend: Backend | 'gateway';
  /** The backend operation, `Service/Method` as the backend's interceptor names it (`cluster.core.v1.EntryService/CreateEntry`). */
  operation?: string;
  run(request: RouteRequest): Promise<RouteResult>;
}

/** The body and query schema of a route that has none: an empty object. */
type Nothing = TObject<Record<never, TSchema>>;

/**
 * The resource a path parameter names, singular, in kebab case: `time-entry` for `:id` of
 * `/time-entries/:id/submit`; undefined when no collection precedes it. The OpenAPI document's
 * parameter descriptions and the tool-protocol arguments both name parameters by it.
 */
export function resourceOfParam(path: string, param: string): string | undefined {
  const collection = new RegExp(`/([a-z-]+)/:${param}(?:/|$)`).exec(path)?.[1];
  return collection?.replace(/ies$/, 'y').replace(/s$/, '');
}

/**
 * Makes a route of the table. The handler's `body` is `Static<typeof body>` and its
 * `query` `Static<typeof query>`: `run` validates both (body first, then query; each
 * throws 400 validation_error) before the handler sees them, and its `call` is the
 * method `rpc` of `service`'s Connect client.
 */
export function defineRoute<
  B extends TSchema = Nothing,
  Q extends TObject = Nothing,
  S extends DescService | undefined = undefined,
  M extends MethodOf<S> = never,
>(spec: RouteSpec<B, Q, S, M>): RouteDef {
  const { handler, ...contract } = spec;
  const method = spec.service && spec.rpc ? spec.service.methods.find((m) => m.localName === spec.rpc) : undefined;
  if (Boolean(spec.service) !== Boolean(method))
    throw new Error(`${spec.method} ${spec.path}: a route names a service and one of its methods (rpc), or neither`);
  return {
    ...contract,
    backend: spec.service ? backendOf(spec.service) : 'gateway',
    ...(spec.service && method ? { operation: `${spec.service.typeName}/${method.name}` } : {}),
    async run({ json, query, clients, actor, params }) {
      const body = spec.body ? validateBody(spec.body, json === undefined ? {} : json) : nothing<B>();
      const call = (
        spec.service && spec.rpc ? clients.of(spec.service)[spec.rpc as keyof Client<DescService>] : undefined
      ) as CallOf<S, M>;
      return handler({ actor, params, call, body, query: spec.query ? validateQuery(spec.query, query) : nothing<Q>() });
    },
  };
}

/**
 * What a route without a body (or query) schema hands its handler: `{}`, never read (its type
 * parameter is then the default, `Nothing`, whose static type is `{}`).
 */
function nothing<S extends TSchema>(): Static<S> {
  return {};
}

/** Matches paths to routes; tells 404 (no such path) from 405 (path exists, method does not). */
export function createMatcher(routes: readonly RouteDef[]) {
  const compiled = routes.map((def) => {
    const names: string[] = [];
    const pattern = def.path.replace(/:([A-Za-z]+)/g, (_, n: string) => {
      names.push(n);
      return '([^/]+)';
    });
    return { def, names, regex: new RegExp(`^${pattern}/?$`) };
  });
  return (method: string, path: string): { route?: RouteDef; params: Record<string, string>; allow: string[] } => {
    const allow: string[] = [];
    for (const c of compiled) {
      const m = c.regex.exec(path);
      if (!m) continue;
      allow.push(c.def.method);
      if (c.def.method === method) {
        const values = c.names.map((_, i) => decodeParam(m[i + 1]));
        // A malformed percent-encoding, or a NUL, names no resource: 404, like any other unknown id.
        if (values.some((v) => v === undefined)) return { params: {}, allow: [] };
        const params = Object.fromEntries(c.names.map((n, i) => [n, values[i] ?? '']));
        return { route: c.def, params, allow };
      }
    }
    return { params: {}, allow };
  };
}

/** A path segment decoded, or undefined when its percent-encoding is malformed or it holds a NUL. */
function decodeParam(segment: string): string | undefined {
  try {
    const value = decodeURIComponent(segment);
    return value.includes('\0') ? undefined : value;
  } catch {
    return undefined;
  }
}
/** A route table's path matcher (createMatcher). */
export type Matcher = ReturnType<typeof createMatcher>;
