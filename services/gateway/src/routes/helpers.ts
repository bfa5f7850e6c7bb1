import type { JsonObject } from '@bufbuild/protobuf';
import type { RouteInput, RouteResult } from '../http/route.ts';

/** Arguments of a list RPC from validated query parameters. */
export function listArgs(input: RouteInput, parentId = '') {
  const { page, pageSize, ...filters } = input.query as { page?: number; pageSize?: number } & Record<string, unknown>;
  return { actor: input.actor, parentId, page: page ?? 1, pageSize: pageSize ?? 25, query: filters as JsonObject };
}

export const ok = (body: unknown): RouteResult => ({ status: 200, body });
export const created = (body: unknown): RouteResult => ({ status: 201, body });
export const noContent = (): RouteResult => ({ status: 204 });
/** Upserts: 201 when a record was created, 200 when an existing one matched. */
export const upserted = (res: { resource?: unknown; created: boolean }): RouteResult => ({ status: res.created ? 201 : 200, body: res.resource });
export const list = (res: { data: unknown[]; page: number; pageSize: number; total: number }): RouteResult =>
  ok({ data: res.data, page: res.page, pageSize: res.pageSize, total: res.total });
