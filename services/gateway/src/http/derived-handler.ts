import type { DescMethod } from '@bufbuild/protobuf';
import type { Operation } from '@cluster/contracts';
import type { Actor } from '@cluster/proto';
import { accepted, created, list, listArgs, noContent, ok, upserted } from './results.ts';
import type { Handle, RouteInput, RouteResult } from './route.ts';
import { toStruct } from './struct.ts';

type Input = RouteInput<unknown, unknown, unknown>;
/** The answer of a common RPC: a page (ListResponse) or one resource (ResourceResponse). */
type Answer = { resource: Uint8Array; created: boolean } & Parameters<typeof list>[0];
type Call = (request: object) => Promise<Answer>;

/**
 * The handler of an operation of a common shape, from its method, path and RPC
 * (docs/adding-a-resource.md), so that only an operation that does something of its own has a
 * handler written (handlers.ts). The request, by the RPC's request message:
 *
 * - `ListRequest`: the page, the page size and the filters of the query; the path's last
 *   parameter, if any, is the parent (`/projects/:id/entries`).
 * - `GetRequest`, `DeleteRequest`: the path's one parameter is the id; the query, if the
 *   operation has one, its `query` Struct.
 * - `WriteRequest`: the body as a Struct; a create (201) takes the path's last parameter as the
 *   parent, any other write as the id, and the one before it as the parent
 *   (`/projects/:id/members/:memberId`).
 *
 * The answer, by the operation's response: a page for a list; 204 without a body; 202, 201 and
 * 200 with the resource, an upsert 201 or 200 as the RPC says it created one or not.
 *
 * Throws, when the gateway starts, for an operation of no common shape: it needs a handler of its own.
 */
export function derivedHandler(operation: Operation, rpc: DescMethod | undefined): Handle {
  const where = `${operation.method} ${operation.path}`;
  if (!rpc) throw new Error(`${where}: the gateway answers it without an RPC, so it needs a handler of its own (handlers.ts)`);
  const params = [...operation.path.matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');
  const [last, before] = [params.at(-1), params.at(-2)];
  const param = (input: Input, name: string | undefined) =>
    name ? { [name === before ? 'parentId' : 'id']: input.params[name] } : {};
  let request: (input: Input) => object;
  switch (rpc.input.typeName) {
    case 'cluster.common.v1.ListRequest':
      return async (input) =>
        list(await (input.call as Call)(listArgs(input as { actor: Actor; query: object }, last ? input.params[last] : '')));
    case 'cluster.common.v1.GetRequest':
    case 'cluster.common.v1.DeleteRequest':
      if (params.length > 1)
        throw new Error(
          `${where}: ${rpc.input.typeName} takes one id, the path has ${params.length}: it needs a handler of its own`,
        );
      request = (input) => ({
        actor: input.actor,
        ...param(input, last),
        ...(operation.query ? { query: toStruct(input.query as object) } : {}),
      });
      break;
    case 'cluster.common.v1.WriteRequest': {
      const creates = operation.response.status === 201;
      request = (input) => ({
        actor: input.actor,
        ...(creates ? (last ? { parentId: input.params[last] } : {}) : { ...param(input, before), ...param(input, last) }),
        ...(operation.body ? { body: toStruct(input.body as object) } : {}),
      });
      break;
    }
    default:
      throw new Error(`${where}: ${rpc.input.typeName} is no common request, so it needs a handler of its own (handlers.ts)`);
  }
  const answer = answerOf(operation);
  return async (input) => answer(await (input.call as Call)(request(input)));
}

/** How an operation answers the RPC's ResourceResponse, by its declared response. */
function answerOf({ response }: Operation): (res: Answer) => RouteResult {
  if (response.status === 204) return () => noContent();
  if (response.upsert) return upserted;
  if (response.status === 201) return (res) => created(res.resource);
  if (response.status === 202) return (res) => accepted(res.resource);
  if (response.status === 200) return (res) => ok(res.resource);
  throw new Error(`a derived handler answers 200, 201, 202 or 204, not ${response.status}`);
}
