import type { JsonObject } from '@bufbuild/protobuf';
import type { Actor } from '@cluster/proto';
import { DomainError } from './errors.ts';

/**
 * Small helpers every backend's RPC handlers and presenters share, so that core,
 * delivery and evidence read requests and shape answers the same way.
 */

/** The actor, or a 401 when a caller forgot it (an internal bug, never a client's). */
export function requireActor(actor: Actor | undefined): Actor {
  if (!actor?.organizationId) throw new DomainError('unauthorized', 'no actor on the call');
  return actor;
}

/** Page arguments of a list RPC (the gateway has validated them): page from 1, 1..100 per page, 25 by default. */
export interface PageArgs {
  page: number;
  pageSize: number;
}

/** Normalises page arguments from an RPC. */
export function pageArgs(req: { page: number; pageSize: number }): PageArgs {
  return { page: req.page > 0 ? req.page : 1, pageSize: req.pageSize > 0 ? Math.min(req.pageSize, 100) : 25 };
}

/** One page of a list with its true total, in the shape of the RPC list response. */
export interface Page<T> {
  data: T[];
  page: number;
  pageSize: number;
  total: number;
}

/**
 * A request Struct (body or query) as the type the gateway validated it against, e.g.
 * `bodyOf<EntryCreateBody>(req.body)`; a plain record unless named (never guessed from the
 * call site: NoInfer); absent means empty. The Struct carries no type: this is the one place a
 * backend relies on the validation of the route's schema, which the gateway runs and the backend's
 * service-token interceptor runs again on a gateway call (OPERATION_RULES, `enforceInput`), so
 * services take the contract's body types and never cast.
 */
export function bodyOf<T extends object = Record<string, unknown>>(v: JsonObject | undefined): NoInfer<T> {
  return (v ?? {}) as T;
}

/**
 * A database row as JSON for an RPC answer: Dates to ISO strings, undefined dropped.
 * `only` keeps just those keys (in that order); `omit` drops those keys.
 */
export function rowToJson(
  row: Record<string, unknown>,
  pick: { only?: readonly string[]; omit?: readonly string[] } = {},
): JsonObject {
  const out: JsonObject = {};
  const keys = pick.only ?? Object.keys(row);
  for (const k of keys) {
    const v = row[k];
    if (v === undefined || pick.omit?.includes(k)) continue;
    out[k] = v instanceof Date ? v.toISOString() : (v as JsonObject[string]);
  }
  return out;
}

/** A page with its rows presented. */
export function presentPage<R, T>(p: Page<R>, present: (row: R) => T): Page<T> {
  return { ...p, data: p.data.map(present) };
}

/**
 * A presented resource (or array of them) as the UTF-8 JSON bytes an answer carries
 * (`ResourceResponse.resource`, `ListResponse.data`). Serialised once here; the gateway
 * writes these bytes as they are, so resources never go through a protobuf Struct.
 */
export function jsonBytes(value: object): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

/** A page of presented resources as a list RPC's answer: its rows as one JSON array (jsonBytes). */
export function jsonPage(p: Page<object>): { data: Uint8Array; page: number; pageSize: number; total: number } {
  return { data: jsonBytes(p.data), page: p.page, pageSize: p.pageSize, total: p.total };
}
