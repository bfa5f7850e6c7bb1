import type { Actor } from '@cluster/proto';
import type { Permission, Role } from '@cluster/contracts';
import type { TSchema } from '@sinclair/typebox';
import type { Clients } from '../clients.ts';

/** What a handler sees: the authenticated actor and validated input. */
export interface RouteInput {
  actor: Actor;
  params: Record<string, string>;
  body: Record<string, unknown>;
  query: Record<string, unknown>;
  clients: Clients;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One public route: its contract (for validation and the OpenAPI document) and a thin handler. */
export interface RouteDef {
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
  body?: TSchema;
  query?: TSchema;
  response: { status: number; schema?: TSchema; description?: string };
  handler(input: RouteInput): Promise<RouteResult>;
}

export function defineRoutes(routes: RouteDef[]): RouteDef[] {
  return routes;
}

interface Compiled {
  def: RouteDef;
  regex: RegExp;
  names: string[];
}

/** Matches paths to routes; tells 404 (no such path) from 405 (path exists, method does not). */
export function createMatcher(routes: RouteDef[]) {
  const compiled: Compiled[] = routes.map((def) => {
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
        const params = Object.fromEntries(c.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
        return { route: c.def, params, allow };
      }
    }
    return { params: {}, allow };
  };
}
