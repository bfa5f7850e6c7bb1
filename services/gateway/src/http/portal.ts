import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Next } from 'koa';
import { DomainError } from '@cluster/platform';
import { PortalService, type PortalSessionResponse } from '@cluster/proto';
import type { Clients } from '../clients.ts';
import { developmentBaseUrl } from '../mcp/endpoint.ts';
import { nameRequest, type GatewayContext } from './context.ts';
import type { FailureLimit } from './failure-limit.ts';
import { API_PREFIX } from './match-route.ts';
import { onceSteps } from './once.ts';
import { serveRest } from './rest-operation.ts';
import type { RateLimiter } from './rate-limit.ts';
import { createMatcher, type RouteDef } from './route.ts';

/** Where the portal lives (docs/portal.md): its pages, its start link and its API. */
export const PORTAL_PATH = '/portal';
/** The portal's API: the v1 webhook routes, under the portal's path, for the session's cookie instead of a key. */
export const PORTAL_API = `${PORTAL_PATH}${API_PREFIX}`;
const START = `${PORTAL_PATH}/start`;
const SESSION = `${PORTAL_PATH}/session`;
/** The portal's sign-out: ends the session server-side and clears its cookies (docs/portal.md, "Ending a session"). */
export const LOGOUT = `${PORTAL_PATH}/logout`;

/** The cookies: the session's token (HttpOnly) and its CSRF token, which the page reads and sends back as X-Portal-CSRF. */
export const SESSION_COOKIE = 'portal_session';
export const CSRF_COOKIE = 'portal_csrf';
export const CSRF_HEADER = 'x-portal-csrf';

/** The tags of the operations a portal session may call: the webhook pages', never minting sessions or changing settings. */
const PORTAL_TAGS = new Set(['webhooks']);

const TOKEN = /^pt[lsc]_[A-Za-z0-9_-]{43}$/;

/**
 * The strict policy of every portal answer: nothing but this origin's own files, no inline script or
 * style, and `frame-ancestors` from the organization's allow-list (PATCH /portal-settings), so only
 * those pages may embed it; without a session, no page may.
 */
export function portalCsp(frameAncestors: readonly string[]): string {
  const ancestors = frameAncestors.length ? `'self' ${frameAncestors.join(' ')}` : "'self'";
  return (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    `font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors ${ancestors}`
  );
}

/** Plain http to a loopback host (development, the tests): no Secure cookies, which the browser would drop. */
function plainLoopback(ctx: GatewayContext): boolean {
  return !ctx.secure && ['localhost', '127.0.0.1', '[::1]', '::1'].includes(ctx.hostname);
}

/**
 * The cookie attributes (docs/portal.md, "Cookies"): over HTTPS `Secure; SameSite=None; Partitioned`,
 * since a page of another site embedding the portal in an iframe must have them sent (CHIPS keeps them
 * in that embedding's partition); writes are guarded by the CSRF token and the Origin check instead of
 * SameSite. On plain-http loopback (development) `SameSite=Lax` without Secure.
 */
function cookie(ctx: GatewayContext, name: string, value: string, maxAge: number, httpOnly: boolean): string {
  const attrs = [`${name}=${value}`, `Path=${PORTAL_PATH}`, `Max-Age=${maxAge}`];
  if (httpOnly) attrs.push('HttpOnly');
  attrs.push(...(plainLoopback(ctx) ? ['SameSite=Lax'] : ['Secure', 'SameSite=None', 'Partitioned']));
  return attrs.join('; ');
}

/** The built portal app (apps/portal/dist, copied beside the gateway's bundle by the build), if any. */
function appDirectory(): string | undefined {
  for (const candidate of ['./portal/', '../../dist/portal/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
};

const UNBUILT = Buffer.from(
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Webhook portal</title></head>' +
    '<body><main><h1>Webhook portal</h1><p>The portal app is not built: run <code>npm run build</code>.</p></main></body></html>',
);

/**
 * The origin a portal write must come from: the gateway's public one (PUBLIC_BASE_URL), never one made
 * of the request's Host header, which a proxy in front rewrites (and which names http:// behind a TLS
 * terminator); in development without PUBLIC_BASE_URL the request's loopback host, as the tool-protocol
 * endpoint's base URL (developmentBaseUrl).
 */
export function portalWriteOrigin(publicBaseUrl: string | undefined, ctx: GatewayContext): string {
  return new URL(publicBaseUrl ?? developmentBaseUrl(ctx)).origin;
}

export interface PortalDeps {
  /** The gateway's public origin (PUBLIC_BASE_URL); unset only in development. */
  publicBaseUrl?: string;
  routes: readonly RouteDef[];
  clients: Clients;
  limiter: RateLimiter;
  failureLimit: FailureLimit;
}

/**
 * The integrator portal (docs/portal.md): `GET /portal/start?token=` opens a one-time link into a
 * cookie session and redirects to the app; `/portal/session` tells the app about its session;
 * `POST /portal/logout` ends it;
 * `/portal/api/v1/...` runs the v1 webhook routes through the one pipeline (pipeline.ts) with the
 * session's actor (the minting key's, narrowed to the session's access and scope; the backends
 * enforce it again), writes only with the session's CSRF token from this origin; anything else
 * under /portal is the app's files. Every answer carries the portal's CSP.
 */
export function createPortal(deps: PortalDeps) {
  const { clients, limiter, failureLimit } = deps;
  const portal = clients.of(PortalService);
  const match = createMatcher(deps.routes.filter((r) => PORTAL_TAGS.has(r.tag)));
  const dir = appDirectory();
  const files = new Map<string, Buffer>();

  const sessionOf = async (ctx: GatewayContext, write: boolean): Promise<PortalSessionResponse> => {
    const sessionToken = ctx.cookies.get(SESSION_COOKIE) ?? '';
    if (!sessionToken)
      throw new DomainError('unauthorized', 'no portal session: open a portal link (POST /api/v1/portal-sessions)');
    const proof = { id: createHash('sha256').update(sessionToken).digest('base64'), wellFormed: TOKEN.test(sessionToken) };
    return failureLimit(ctx, proof, () =>
      portal.authenticatePortalSession({ sessionToken, csrfToken: ctx.get(CSRF_HEADER), write }),
    );
  };

  async function start(ctx: GatewayContext): Promise<void> {
    ctx.set('Referrer-Policy', 'no-referrer'); // the link's token is in the URL
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const proof = { id: createHash('sha256').update(token).digest('base64'), wellFormed: TOKEN.test(token) };
    let opened: PortalSessionResponse;
    try {
      opened = await failureLimit(ctx, proof, () => portal.openPortalSession({ linkToken: token }));
    } catch (err) {
      if (!(err instanceof DomainError) || err.status !== 401) throw err;
      ctx.status = 401;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body =
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link expired</title></head><body><main>' +
        '<h1>This portal link cannot be opened</h1><p>It was used already or has expired. Ask for a new one.</p></main></body></html>';
      return;
    }
    const maxAge = Math.max(0, Math.floor((Date.parse(opened.expiresAt) - Date.now()) / 1000));
    ctx.set('Content-Security-Policy', portalCsp(opened.frameAncestors));
    ctx.append('Set-Cookie', cookie(ctx, SESSION_COOKIE, opened.sessionToken, maxAge, true));
    ctx.append('Set-Cookie', cookie(ctx, CSRF_COOKIE, opened.csrfToken, maxAge, false));
    ctx.status = 303;
    ctx.redirect(`${PORTAL_PATH}/`);
  }

  /** A write comes from the portal's own pages: a browser names their origin; another origin's is refused (403). */
  const checkWriteOrigin = (ctx: GatewayContext): void => {
    const origin = ctx.get('origin');
    if (origin && origin !== portalWriteOrigin(deps.publicBaseUrl, ctx))
      throw new DomainError('forbidden', 'a portal write must come from the portal’s own origin');
  };

  /** Both cookies, emptied and expired, with the attributes they were set with (a partitioned cookie is removed only so). */
  const clearCookies = (ctx: GatewayContext): void => {
    ctx.append('Set-Cookie', cookie(ctx, SESSION_COOKIE, '', 0, true));
    ctx.append('Set-Cookie', cookie(ctx, CSRF_COOKIE, '', 0, false));
  };

  /**
   * `POST /portal/logout`, the portal's "Sign out": ends the session at the delivery service, which
   * checks the CSRF token too (a write: from this origin, with X-Portal-CSRF), then clears both cookies;
   * 204. A session that is no longer live answers 401 as any portal call does, and its dead cookies are
   * cleared all the same. A refused write (403) leaves the cookies alone: another site cannot sign a
   * user out.
   */
  async function logout(ctx: GatewayContext): Promise<void> {
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
    }
    checkWriteOrigin(ctx);
    const sessionToken = ctx.cookies.get(SESSION_COOKIE) ?? '';
    try {
      if (!sessionToken) throw new DomainError('unauthorized', 'no portal session: there is nothing to sign out of');
      const proof = { id: createHash('sha256').update(sessionToken).digest('base64'), wellFormed: TOKEN.test(sessionToken) };
      await failureLimit(ctx, proof, () => portal.endPortalSession({ sessionToken, csrfToken: ctx.get(CSRF_HEADER) }));
    } catch (err) {
      if (err instanceof DomainError && err.status === 401) clearCookies(ctx);
      throw err;
    }
    clearCookies(ctx);
    ctx.status = 204;
  }

  async function api(ctx: GatewayContext): Promise<void> {
    const write = ctx.method !== 'GET' && ctx.method !== 'HEAD';
    if (write) checkWriteOrigin(ctx);
    const { route, params, allow } = match(ctx.method, ctx.path.slice(PORTAL_API.length));
    if (!route) {
      if (allow.length) {
        ctx.set('Allow', [...new Set(allow)].join(', '));
        throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
      }
      throw new DomainError('not_found', 'no such route in the portal');
    }
    nameRequest(ctx, `${PORTAL_API}${route.path}`, route);
    const session = await sessionOf(ctx, write);
    ctx.set('Content-Security-Policy', portalCsp(session.frameAncestors));
    // The session, resolved from its cookie just now, is named in the audit records of its writes.
    const actor = { ...session.actor!, portalSessionId: session.sessionId };
    // The organization's API switch is the core's to check again (actor_changed when off).
    await serveRest(ctx, { route, params }, { actor, apiEnabled: true }, onceSteps(ctx, limiter), clients);
  }

  async function sessionInfo(ctx: GatewayContext): Promise<void> {
    const session = await sessionOf(ctx, false);
    const actor = session.actor!;
    ctx.set('Content-Security-Policy', portalCsp(session.frameAncestors));
    ctx.body = {
      access: session.access,
      expiresAt: session.expiresAt,
      organizationId: actor.organizationId,
      scope: actor.scope,
      projectId: actor.scopedProjectId ?? null,
      permissions: actor.permissions,
    };
  }

  async function page(ctx: GatewayContext): Promise<void> {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
    }
    // The allow-list of the session's organization; without a live session, only this origin may frame the page.
    const session = await sessionOf(ctx, false).catch(() => undefined);
    ctx.set('Content-Security-Policy', portalCsp(session?.frameAncestors ?? []));
    ctx.set('Referrer-Policy', 'no-referrer');
    const rel = ctx.path.slice(PORTAL_PATH.length).replace(/^\/+/, '');
    const asset = rel.startsWith('assets/') && !rel.includes('..') ? rel : 'index.html';
    const type = TYPES[path.extname(asset)];
    if (!dir) {
      ctx.type = TYPES['.html']!;
      ctx.body = UNBUILT;
      return;
    }
    let body = files.get(asset);
    if (!body) {
      const file = path.join(dir, asset);
      if (!type || !existsSync(file)) throw new DomainError('not_found', 'no such file in the portal');
      files.set(asset, (body = readFileSync(file)));
    }
    // Hashed asset names change with every build; the page itself is revalidated.
    ctx.set('Cache-Control', asset === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable');
    ctx.type = type!;
    ctx.body = body;
  }

  return async function portalRoutes(ctx: GatewayContext, next: Next): Promise<void> {
    if (ctx.path !== PORTAL_PATH && !ctx.path.startsWith(`${PORTAL_PATH}/`)) return void (await next());
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', portalCsp([]));
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    if (ctx.path.startsWith(`${PORTAL_API}/`)) return api(ctx);
    if (ctx.path === START) {
      nameRequest(ctx, START);
      if (ctx.method !== 'GET') throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
      return start(ctx);
    }
    if (ctx.path === SESSION) {
      nameRequest(ctx, SESSION);
      return sessionInfo(ctx);
    }
    if (ctx.path === LOGOUT) {
      nameRequest(ctx, LOGOUT);
      return logout(ctx);
    }
    nameRequest(ctx, PORTAL_PATH);
    return page(ctx);
  };
}
