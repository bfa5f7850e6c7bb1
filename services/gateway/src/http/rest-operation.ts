import type { ServiceClients } from '../clients.ts';
import type { GatewayContext } from './context.ts';
import { runIdempotent } from './idempotency.ts';
import type { onceSteps } from './once.ts';
import { runOperation, type Operation } from './pipeline.ts';
import { respond } from './respond.ts';
import type { RouteDef } from './route.ts';
import { assertSafeQuery } from './safe-input.ts';

/**
 * Runs a route for an HTTP request through the one pipeline (pipeline.ts) and writes its answer: the
 * REST envelope's steps (rate limit of the actor's key, the body read once, the query checked, the
 * Idempotency-Key), whoever authenticated it: an API key (app.ts) or a portal session (portal.ts).
 */
export async function serveRest(
  ctx: GatewayContext,
  match: { route: RouteDef; params: Record<string, string> },
  auth: Operation['auth'],
  once: ReturnType<typeof onceSteps>,
  clients: ServiceClients,
): Promise<void> {
  const { route, params } = match;
  const apiKeyId = auth.actor.apiKeyId;
  const result = await runOperation(
    {
      route,
      auth,
      rateLimit: () => once.rateLimit(apiKeyId),
      async decode() {
        const { raw, json } = await once.body();
        assertSafeQuery(ctx.query);
        return { params, json, query: ctx.query, raw };
      },
      guard: (run, { raw = '' }) => runIdempotent(ctx, route, raw, run),
    },
    clients,
  );
  respond(ctx, result);
}
