import type { Actor } from '@cluster/proto';
import type { ListQueryValues } from '@cluster/contracts';
import type { RouteResult } from './route.ts';
import { toStruct } from './struct.ts';

/** Arguments of a list RPC from the validated query: page, pageSize, and every other parameter as the filters. */
export function listArgs(input: { actor: Actor; query: ListQueryValues }, parentId = '') {
  const { page, pageSize, ...filters } = input.query;
  return { actor: input.actor, parentId, page: page ?? 1, pageSize: pageSize ?? 25, query: toStruct(filters) };
}

/**
 * A backend's JSON bytes, checked to be there. Empty bytes are a field the backend did not set
 * (a backend older than this gateway, or a bug): a 500, never a 200 with an empty or broken body.
 */
function filled(json: Uint8Array): Uint8Array {
  if (json.byteLength === 0) throw new Error('a backend answered without its JSON');
  return json;
}

/** 200 with the resource (a ResourceResponse's JSON bytes). */
export const ok = (body: Uint8Array): RouteResult => ({ status: 200, body: filled(body) });
/** 201 with the created resource (JSON bytes). */
export const created = (body: Uint8Array): RouteResult => ({ status: 201, body: filled(body) });
/** 204, no body (deletes). */
export const noContent = (): RouteResult => ({ status: 204 });
/** 202: the work was accepted and goes on in the background. */
export const accepted = (body: Uint8Array): RouteResult => ({ status: 202, body: filled(body) });
/** Upserts: 201 when a record was created, 200 when an existing one matched. */
export const upserted = (res: { resource: Uint8Array; created: boolean }): RouteResult => ({
  status: res.created ? 201 : 200,
  body: filled(res.resource),
});

const LIST_OPEN = Buffer.from('{"data":');

/**
 * A list RPC's page as the spec's list answer, `{"data":[...],"page":..,"pageSize":..,"total":..}`,
 * assembled around the backend's JSON array (`ListResponse.data`) without parsing it.
 */
export function list(res: { data: Uint8Array; page: number; pageSize: number; total: number }): RouteResult {
  const close = Buffer.from(`,"page":${res.page},"pageSize":${res.pageSize},"total":${res.total}}`);
  return { status: 200, body: Buffer.concat([LIST_OPEN, filled(res.data), close]) };
}
