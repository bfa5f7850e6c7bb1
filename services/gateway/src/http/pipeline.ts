import type { Actor } from '@cluster/proto';
import { claimsOf, fromConnectError, requestContext } from '@cluster/platform';
import type { ServiceClients } from '../clients.ts';
import { authorize } from './authorize.ts';
import type { RouteDef, RouteRequest, RouteResult } from './route.ts';

/** A route's request as an envelope decoded it: path parameters, JSON body (undefined: none) and query. */
export type Decoded = Pick<RouteRequest, 'params' | 'json' | 'query'> & {
  /** The body's bytes as received, when the envelope had a body of its own (REST): the Idempotency-Key fingerprint. */
  raw?: string;
};

/**
 * One operation of a route, whatever envelope carried it: a REST request (app.ts) or a tool call on
 * /mcp (mcp/endpoint.ts). The envelope authenticates (once per HTTP request, with the one
 * authenticator) and supplies its own ways of counting, decoding and guarding; the steps and their
 * order are the pipeline's alone.
 */
export interface Operation {
  route: RouteDef;
  auth: { actor: Actor; apiEnabled: boolean };
  /** Counts the operation against the key's rate limit: 429 over it. */
  rateLimit(): Promise<void>;
  /** Reads the route's input out of the envelope (after authorization: nothing is read for a refused caller). */
  decode(): Promise<Decoded>;
  /** Runs the route under the envelope's once-only rule (REST: the Idempotency-Key); without one, runs it. */
  guard?(run: () => Promise<RouteResult>, decoded: Decoded): Promise<RouteResult>;
}

/**
 * The pipeline of every v1 operation, after authentication: rate limit, authorization (API switch,
 * scope, permission, role), decode, then under the envelope's guard the route's validation and
 * handler (one backend call, which audits the write and presents the answer). A backend's Connect
 * error becomes its DomainError.
 */
export async function runOperation(op: Operation, clients: ServiceClients): Promise<RouteResult> {
  const { route, auth } = op;
  const request = requestContext.getStore();
  if (request) request.actor = claimsOf(auth.actor);
  await op.rateLimit();
  authorize(route, auth.actor, auth.apiEnabled);
  const decoded = await op.decode();
  const run = async () => {
    try {
      return await route.run({ actor: auth.actor, params: decoded.params, json: decoded.json, query: decoded.query, clients });
    } catch (err) {
      throw fromConnectError(err) ?? err;
    }
  };
  return op.guard ? op.guard(run, decoded) : run();
}
