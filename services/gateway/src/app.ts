import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { Counter, Histogram } from 'prom-client';
import { DomainError, requestContext, type Logger, type Metrics } from '@cluster/platform';
import { OAuthService } from '@cluster/proto';
import type { Clients } from './clients.ts';
import { answerHeaders } from './http/answer-headers.ts';
import { apiKeyOf, createAuthenticator, type Authenticated } from './http/authenticate.ts';
import { nameRequest, type GatewayState } from './http/context.ts';
import { renderError } from './http/errors.ts';
import { API_PREFIX, matchRoute } from './http/match-route.ts';
import { createReferencePage } from './http/reference-page.ts';
import { buildOpenApi } from './http/openapi.ts';
import { onceSteps } from './http/once.ts';
import { serveRest } from './http/rest-operation.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import { createMatcher, type RouteDef } from './http/route.ts';
import { createMcpEndpoint, developmentBaseUrl, type McpSettings } from './mcp/endpoint.ts';
import { createOAuthServer } from './mcp/oauth.ts';
import { createCodeHostHooks } from './http/hooks.ts';
import { createFailureLimit } from './http/failure-limit.ts';
import { createSettingsRoutes } from './http/settings.ts';
import { createEvidenceKeysDocument } from './http/evidence-keys.ts';
import { createPortal } from './http/portal.ts';

export interface GatewayDeps {
  clients: Clients;
  routes: readonly RouteDef[];
  limiter: RateLimiter;
  /** Failed authentications per client address. */
  authFailures: RateLimiter;
  /** Proxies in front of the gateway whose X-Forwarded-For is trusted (TRUSTED_PROXY_HOPS). */
  trustedProxyHops: number;
  logger: Logger;
  metrics: Metrics;
  ready: () => Promise<Record<string, boolean>>;
  /** The tool-protocol endpoint's settings. */
  mcp: McpSettings;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the Koa gateway (unstarted, so tests can listen on port 0). */
export function buildGateway(deps: GatewayDeps): Koa {
  const { clients, routes, limiter, logger, metrics } = deps;
  const match = createMatcher(routes);
  const openapi = buildOpenApi(routes);
  const overLimit = new Counter({
    name: `${metrics.prefix}auth_over_limit_total`,
    help: 'Authentications from client addresses over their failed-authentication limit, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [metrics.registry],
  });
  // One limit of failed authentications for API keys, settings sessions and code-host signatures (its check slots are shared).
  const failureLimit = createFailureLimit({ failures: deps.authFailures, onOverLimit: (outcome) => overLimit.inc({ outcome }) });
  const authenticator = createAuthenticator({ auth: clients.auth, failureLimit });
  const requests = new Counter({
    name: `${metrics.prefix}http_requests_total`,
    help: 'HTTP requests answered, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [metrics.registry],
  });
  const duration = new Histogram({
    name: `${metrics.prefix}http_request_duration_seconds`,
    help: 'HTTP request latency, by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [metrics.registry],
  });

  const app = new Koa<GatewayState>();
  // Behind N trusted proxies, the client is the Nth address from the right of X-Forwarded-For; with none
  // (the default), the header is ignored and the client is the socket's peer (ctx.ip).
  app.proxy = deps.trustedProxyHops > 0;
  app.maxIpsCount = deps.trustedProxyHops;
  app.silent = true;

  app.use(answerHeaders);

  // Request id, metrics, access log and the one error exit. (Named middleware: the Koa instrumentation names its spans by them.)
  app.use(async function requestLog(ctx, next) {
    const given = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    await requestContext.run({ requestId }, async () => {
      try {
        await next();
      } catch (err) {
        renderError(ctx, err, logger);
      }
    });
    // Label by the route's pattern (nameRequest), never the raw path (one series per id): anything else 'unmatched'.
    const route = ctx.state.route?.path ?? ctx.state.endpoint ?? 'unmatched';
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    requests.inc({ method: ctx.method, route, status: String(ctx.status) });
    duration.observe({ method: ctx.method, route }, seconds);
    logger.info({ requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
  });

  // Operational endpoints and the public documents, no authentication.
  const referencePage = createReferencePage();
  app.use(async function operationalEndpoints(ctx, next) {
    if (ctx.path === '/healthz') {
      nameRequest(ctx, ctx.path);
      return void (ctx.body = { status: 'ok' });
    }
    if (ctx.path === '/readyz') {
      nameRequest(ctx, ctx.path);
      const checks = await deps.ready().catch(() => ({ backends: false }));
      const ok = Object.values(checks).every(Boolean);
      ctx.status = ok ? 200 : 503;
      return void (ctx.body = { ready: ok, checks });
    }
    if (ctx.path === `${API_PREFIX}/openapi.json`) {
      nameRequest(ctx, ctx.path);
      return void (ctx.body = openapi);
    }
    if (referencePage(ctx)) {
      nameRequest(ctx, ctx.path); // the page or its script, nothing else
      return;
    }
    await next();
  });

  // The evidence public keys (anyone verifies a package with them).
  app.use(createEvidenceKeysDocument(clients));

  // The settings routes (a settings session, not an API key).
  app.use(createSettingsRoutes(clients, failureLimit));

  // The integrator portal (a portal session's cookie, not an API key; docs/portal.md).
  app.use(createPortal({ routes, clients, limiter, failureLimit, publicBaseUrl: deps.mcp.publicBaseUrl }));

  // Inbound code-host webhooks (signed with the organization's secret, not an API key).
  app.use(createCodeHostHooks(clients, failureLimit));

  // The tool-protocol endpoint (/mcp, its privacy link and its protected-resource metadata): the v1 routes as tools.
  app.use(createMcpEndpoint({ routes, clients, authenticator, limiter, settings: deps.mcp, logger }));

  // The tool-protocol endpoint's OAuth sign-in (docs/mcp.md, "Signing in"): an API key never reaches the assistant.
  app.use(
    createOAuthServer({
      oauth: clients.of(OAuthService),
      baseUrl: (ctx) => deps.mcp.publicBaseUrl ?? developmentBaseUrl(ctx),
      trustedProxyHops: deps.trustedProxyHops,
      failureLimit,
      logger,
    }),
  );

  // The v1 REST envelope around the one pipeline (http/pipeline.ts, which /mcp's tool calls run too): match,
  // authenticate, then runOperation: rate limit, authorize (switch, scope, permission, role), decode (the body: JSON
  // only, no NUL, bounded depth; no NUL in the query either), then under the Idempotency-Key: validate body and
  // query, run the handler. A known key's actor comes from the authenticator's
  // cache and the core checks it again on the call itself; a refusal decided here with a cached actor (429, 403,
  // 4xx) or the core's actor_changed is only answered after a fresh check of the key, so a revoked key still
  // answers 401 first and changed grants apply at once. Safe to run twice: a handler makes one backend call,
  // and nothing here refuses after it.
  app.use(async function v1Pipeline(ctx) {
    const once = onceSteps(ctx, limiter);
    let matched: ReturnType<typeof matchRoute>;
    try {
      matched = matchRoute(ctx, match);
    } catch (refusal) {
      // No such route (404) or method (405): a request with a key still proves it (401 otherwise)
      // and counts against its limit, so its answer carries the X-RateLimit-* headers like any other.
      if (apiKeyOf(ctx.get('authorization'), ctx.get('x-api-key'))) {
        await once.rateLimit((await authenticator.authenticate(ctx, { fresh: false })).actor.apiKeyId);
      }
      throw refusal;
    }
    const { route } = matched;
    const serve = (auth: Authenticated) => serveRest(ctx, matched, auth, once, clients);
    // The core re-checks the key on every call; the delivery and evidence services cannot, so their routes check it here.
    const auth = await authenticator.authenticate(ctx, { fresh: route.backend !== 'core' });
    try {
      await serve(auth);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      if (err.remote && err.status === 401) authenticator.forget(ctx);
      const decidedOnCache = auth.cached && (!err.remote || err.reason === 'actor_changed');
      if (!decidedOnCache) throw err;
      await serve(await authenticator.authenticate(ctx, { fresh: true }));
    }
  });

  return app;
}
