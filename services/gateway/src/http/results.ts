import type { Actor } from '@cluster/proto';
import type { ListQueryValues } from '@cluster/contracts';
import type { RouteResult } from './route.ts';
import { toStruct } from './struct.ts';

/** Arguments of a list RPC from the validated query: page, pageSize, and every other parameter as the filters. */
export function listArgs(input: { actor: Actor; query: ListQueryValues }, parentId = '') {
  const { page, pageSize, ...filters } = input.query;
  return { actor: input.actor, parentId, page: page ?? 1, pageSize: pageSize ?? 25, query: toStruct(filters) };
}

/** 200 with the body. */
export const ok = (body: unknown): RouteResult => ({ status: 200, body });
/** 201 with the created resource. */
export const created = (body: unknown): RouteResult => ({ status: 201, body });
/** 204, no body (deletes). */
export const noContent = (): RouteResult => ({ status: 204 });
/** Upserts: 201 when a record was created, 200 when an existing one matched. */
export const upserted = (res: { resource?: unknown; created: boolean }): RouteResult => ({
  status: res.created ? 201 : 200,
  body: res.resource,
});
/** A list RPC's page as the spec's list answer. */
export const list = (res: { data: unknown[]; page: number; pageSize: number; total: number }): RouteResult =>
  ok({ data: res.data, page: res.page, pageSize: res.pageSize, total: res.total });
