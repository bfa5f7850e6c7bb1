import type { Readable } from 'node:stream';
import type { DescService } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import type { Actor } from '@cluster/proto';
import type { Operation } from '@cluster/contracts';
import { rpcOf } from '@cluster/platform';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { backendOf, type Backend, type ServiceClients } from '../clients.ts';
import { derivedHandler } from './derived-handler.ts';
import { validateBody, validateQuery } from './validate.ts';

/** The methods of a generated service, by their names on its Connect client (`createEntry`). */
export type MethodOf<S extends DescService | undefined> = S extends DescService ? keyof Client<S> & string : never;
/** The Connect call of method `M` of service `S`: what a named handler with `service` and `rpc` is given. */
export type CallOf<S extends DescService | undefined, M> = S extends DescService
  ? M extends keyof Client<S>
    ? Client<S>[M]
    : undefined
  : undefined;

/**
 * What a handler sees: the authenticated actor, the input typed by the operation's body and query
 * schemas, and `call`: the client method of the one RPC the operation runs.
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
  /**
   * A stream answer instead of `body` (text/event-stream, GET /webhooks/listen): piped as it comes, for
   * as long as it lasts; no backend deadline bounds it. Destroyed when the client goes away.
   */
  stream?: { type: 'text/event-stream'; body: Readable };
}

/** What a route runs: the handler, given the validated input. */
export type Handle = (input: RouteInput<unknown, unknown, unknown>) => Promise<RouteResult>;

/**
 * A handler of the gateway's own, for an operation whose answer is none of the common shapes
 * (handlers.ts). It names what it reads: the RPC it calls (`service` and `rpc`, its client's
 * method: the handler's `call`), and the operation's body and query schemas that type its input;
 * toRoute checks they are the operation's.
 */
export interface NamedHandler {
  service?: DescService;
  rpc?: string;
  body?: TSchema;
  query?: TObject;
  handle: Handle;
}

/**
 * Makes a named handler, its input typed by the schemas and the RPC it names: `body` is
 * `Static<typeof body>`, `query` `Static<typeof query>`, `call` the method `rpc` of `service`'s client.
 */
export function handler<
  B extends TSchema = Nothing,
  Q extends TObject = Nothing,
  S extends DescService | undefined = undefined,
  M extends MethodOf<S> = never,
>(
  spec: { service?: S; rpc?: M; body?: B; query?: Q },
  handle: (input: RouteInput<Static<B>, Static<Q>, CallOf<S, M>>) => Promise<RouteResult>,
): NamedHandler {
  return { ...spec, handle: handle as Handle };
}

/** One public route: its operation (OPERATIONS of @cluster/contracts), and `run`, which validates the request and calls the handler. */
export interface RouteDef extends Operation {
  /**
   * The process the RPC runs in, from its package (`gateway` without one). The core checks the key's
   * actor on every call; for any other, the gateway checks the key afresh before the route runs.
   */
  backend: Backend | 'gateway';
  run(request: RouteRequest): Promise<RouteResult>;
}

/** The body and query schema of a handler that reads none: an empty object. */
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
 * The route of an operation: `run` validates the body, then the query (each throws 400
 * validation_error), and hands them to the named handler, or to the one derived from the
 * operation's shape (derivedHandler), with `call`: the client method of the operation's RPC.
 */
export function toRoute(operation: Operation, named?: NamedHandler): RouteDef {
  const rpc = rpcOf(operation);
  if (named) checkNamed(operation, named);
  const handle = named?.handle ?? derivedHandler(operation, rpc);
  return {
    ...operation,
    backend: rpc ? backendOf(rpc.parent) : 'gateway',
    async run({ json, query, clients, actor, params }) {
      const body = operation.body ? validateBody(operation.body, json === undefined ? {} : json) : {};
      const call = rpc ? (clients.of(rpc.parent) as Record<string, unknown>)[rpc.localName] : undefined;
      return handle({ actor, params, call, body, query: operation.query ? validateQuery(operation.query, query) : {} });
    },
  };
}

/** Throws unless a named handler calls the operation's RPC and is typed by its schemas. */
function checkNamed(operation: Operation, named: NamedHandler): void {
  const where = `${operation.method} ${operation.path}`;
  const method = named.service?.methods.find((m) => m.localName === named.rpc);
  const calls = method && named.service ? `${named.service.typeName}/${method.name}` : undefined;
  if (calls !== operation.operation)
    throw new Error(`${where}: its handler calls ${calls ?? 'no RPC'}, the operation ${operation.operation ?? 'none'}`);
  if ((named.body && named.body !== operation.body) || (named.query && named.query !== operation.query))
    throw new Error(`${where}: its handler is typed by other schemas than the operation's`);
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
