import { randomUUID } from 'node:crypto';
import Koa, { type Context } from 'koa';
import { Counter, Histogram } from 'prom-client';
import {
  DomainError, SpanKind, SpanStatusCode, contextFrom, fromConnectError, inSpan, missingPermission, requestContext, scopeViolation,
  type Logger, type Metrics, type SecretBox,
} from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Clients } from './clients.ts';
import { readJsonBody } from './http/body.ts';
import { withIdempotency } from './http/idempotency.ts';
import { buildOpenApi } from './http/openapi.ts';
import type { RateLimiter } from './http/rate-limit.ts';
import { createMatcher, type RouteDef, type RouteResult } from './http/route.ts';
import { validateBody, validateQuery } from './http/validate.ts';

export interface GatewayDeps {
  clients: Clients;
  /** Seals stored Idempotency-Key answers. */
  idempotencyBox: SecretBox;
  routes: RouteDef[];
  limiter: RateLimiter;
  logger: Logger;
  metrics: Metrics;
  ready: () => Promise<Record<string, boolean>>;
}

const API_PREFIX = '/api/v1';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the Koa gateway (unstarted, so tests can listen on port 0). */
export function buildGateway(deps: GatewayDeps): Koa {
  const { clients, routes, limiter, logger, metrics } = deps;
  const match = createMatcher(routes);
  const openapi = buildOpenApi(routes);
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

  const app = new Koa();
  app.proxy = true;
  app.silent = true;

  // Request id, metrics, access log and the one error exit.
  app.use(async (ctx, next) => {
    const given = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const parent = contextFrom(ctx.headers);
    await requestContext.run({ requestId }, () =>
      inSpan('gateway', `${ctx.method} ${ctx.path}`, { kind: SpanKind.SERVER, parent }, async (span) => {
        try {
          await next();
        } catch (err) {
          renderError(ctx, err, logger);
        }
        const routePath = (ctx.state.route as RouteDef | undefined)?.path;
        if (routePath) span.updateName(`${ctx.method} /api/v1${routePath}`);
        span.setAttributes({ 'http.request.method': ctx.method, 'http.response.status_code': ctx.status, 'http.route': routePath ?? '' });
        if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }),
    );
    const route = (ctx.state.route as RouteDef | undefined)?.path ?? (ctx.status === 404 ? 'unmatched' : ctx.path);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    requests.inc({ method: ctx.method, route, status: String(ctx.status) });
    duration.observe({ method: ctx.method, route }, seconds);
    logger.info({ requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
  });

  // Operational endpoints, no authentication.
  app.use(async (ctx, next) => {
    if (ctx.path === '/healthz') return void (ctx.body = { status: 'ok' });
    if (ctx.path === '/readyz') {
      const checks = await deps.ready().catch(() => ({ backends: false }));
      const ok = Object.values(checks).every(Boolean);
      ctx.status = ok ? 200 : 503;
      return void (ctx.body = { ready: ok, checks });
    }
    if (ctx.path === '/metrics') {
      ctx.type = metrics.registry.contentType;
      return void (ctx.body = await metrics.registry.metrics());
    }
    if (ctx.path === `${API_PREFIX}/openapi.json`) return void (ctx.body = openapi);
    await next();
  });

  // The v1 pipeline: match, authenticate, rate limit, scope, permission, role, body, idempotency, validation, handler.
  app.use(async (ctx) => {
    if (!ctx.path.startsWith(`${API_PREFIX}/`)) throw new DomainError('not_found', 'no such route');
    const path = ctx.path.slice(API_PREFIX.length);
    const { route, params, allow } = match(ctx.method, path);
    if (!route) {
      if (allow.length) {
        ctx.set('Allow', [...new Set(allow)].join(', '));
        throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
      }
      throw new DomainError('not_found', 'no such route');
    }
    ctx.state.route = route;

    const actor = await authenticate(ctx, clients);
    const rate = await limiter.hit(actor.apiKeyId);
    ctx.set('X-RateLimit-Limit', String(rate.limit));
    ctx.set('X-RateLimit-Remaining', String(rate.remaining));
    ctx.set('X-RateLimit-Reset', String(rate.reset));
    if (!rate.allowed) {
      ctx.set('Retry-After', String(rate.retryAfter));
      throw new DomainError('rate_limit', 'rate limit exceeded', { retryAfter: rate.retryAfter });
    }
    if (ctx.state.apiEnabled === false) throw new DomainError('forbidden', 'the v1 API is disabled for this organization');
    if (route.orgKeyOnly && actor.scope === 'project') throw scopeViolation('this path needs an organization-scoped key');
    if (route.permission && !actor.permissions.includes(route.permission)) throw missingPermission(route.permission);
    if (route.roles && !route.roles.includes(actor.role as never)) {
      throw new DomainError('forbidden', `requires role ${route.roles.filter((r) => r !== 'platform_admin').join(' or ')}`);
    }

    const { raw, json } = ctx.method === 'GET' || ctx.method === 'DELETE' ? { raw: '', json: undefined } : await readJsonBody(ctx);
    const run = async (): Promise<RouteResult> => {
      let body: Record<string, unknown> = {};
      if (route.body) {
        const candidate = json === undefined ? {} : json;
        validateBody(route.body, candidate);
        body = candidate as Record<string, unknown>;
      }
      const query = route.query ? validateQuery(route.query, ctx.query as Record<string, unknown>) : {};
      try {
        return await route.handler({ actor, params, body, query, clients });
      } catch (err) {
        throw fromConnectError(err) ?? err;
      }
    };
    const idemKey = ctx.get('idempotency-key');
    const result = ctx.method === 'POST' && ctx.headers['idempotency-key'] !== undefined
      ? await withIdempotency(clients, deps.idempotencyBox, actor.apiKeyId, idemKey, { method: ctx.method, path: ctx.path, rawBody: raw }, run)
      : await run();

    ctx.status = result.status;
    for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
    if (result.body !== undefined && result.status !== 204) ctx.body = result.body;
  });

  return app;
}

async function authenticate(ctx: Context, clients: Clients): Promise<Actor> {
  const header = ctx.get('authorization');
  const bearer = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
  const key = bearer || ctx.get('x-api-key').trim();
  if (!key) throw new DomainError('missing_key', 'no API key: send Authorization: Bearer <key> or X-API-Key');
  try {
    const res = await clients.auth.authenticate({ key, requestId: ctx.state.requestId });
    ctx.state.apiEnabled = res.apiEnabled;
    return res.actor!;
  } catch (err) {
    throw fromConnectError(err) ?? err;
  }
}

/** Writes the spec's error body; unknown errors become 500 with the cause logged, never sent. */
function renderError(ctx: Context, err: unknown, logger: Logger): void {
  const known = err instanceof DomainError ? err : fromConnectError(err);
  if (!known || known.reason === 'internal_error') {
    logger.error({ err, requestId: ctx.state.requestId }, 'unhandled error');
    ctx.status = 500;
    ctx.body = { reason: 'internal_error', message: 'internal error', details: { requestId: ctx.state.requestId } };
    return;
  }
  ctx.status = known.status;
  if (known.reason === 'unknown_event_names') {
    ctx.body = { error: 'unknown_event_names', invalid: (known.details?.invalid as string[]) ?? [] };
    return;
  }
  if (known.reason === 'rate_limit' && known.details?.retryAfter !== undefined) {
    ctx.set('Retry-After', String(known.details.retryAfter));
    ctx.body = { reason: known.reason, message: known.message, retryAfter: known.details.retryAfter, details: known.details };
    return;
  }
  ctx.body = known.details ? { reason: known.reason, message: known.message, details: known.details } : { reason: known.reason, message: known.message };
  if (known.status >= 500) logger.warn({ reason: known.reason, message: known.message }, 'backend unavailable');
}
