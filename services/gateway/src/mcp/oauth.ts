import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import type { Response as ExpressResponse } from 'express';
import type { Client } from '@connectrpc/connect';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  AccessDeniedError,
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTokenError,
  TemporarilyUnavailableError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Next } from 'koa';
import { PERMISSIONS, apiKeyPrefixOf } from '@cluster/contracts';
import { DomainError, fromConnectError, type Logger } from '@cluster/platform';
import type { OAuthService } from '@cluster/proto';
import { readRawBody } from '../http/body.ts';
import { nameRequest, type GatewayContext } from '../http/context.ts';
import type { FailureLimit } from '../http/failure-limit.ts';

/**
 * The tool-protocol endpoint's sign-in (docs/mcp.md, "Signing in"): an OAuth 2.1 authorization server
 * as the MCP authorization spec describes it, on the official SDK's handlers (metadata RFC 8414,
 * dynamic client registration RFC 7591, authorization with PKCE S256, tokens with refresh, revocation
 * RFC 7009). The gateway serves the endpoints; the core keeps clients and grants (OAuthService). The
 * consent page asks the user for their API key and the scopes to give: the assistant gets an access
 * token that acts as that key narrowed to them, for an hour, refreshed for 30 days, never the key.
 */
export const OAUTH_PATHS = ['/.well-known/oauth-authorization-server', '/authorize', '/token', '/register', '/revoke'] as const;
export const CONSENT_PATH = '/oauth/consent';

/** The OAuth error of a core refusal (its details name it), for the SDK's handlers to answer. */
function toOAuthError(err: unknown): unknown {
  const known = err instanceof DomainError ? err : fromConnectError(err);
  if (!known) return err;
  const code = (known.details as { oauthError?: string } | undefined)?.oauthError;
  if (code === 'invalid_grant') return new InvalidGrantError(known.message);
  if (code === 'invalid_scope') return new InvalidScopeError(known.message);
  if (code === 'invalid_client') return new InvalidClientError(known.message);
  if (code === 'access_denied') return new AccessDeniedError(known.message);
  if (code === 'invalid_request' || known.status === 400) return new InvalidRequestError(known.message);
  if (known.status === 401) return new InvalidGrantError(known.message);
  if (known.status === 404) return new InvalidClientError(known.message);
  if (known.status >= 500) return new TemporarilyUnavailableError('the service is unavailable; try again shortly');
  return new InvalidRequestError(known.message);
}

/**
 * The SDK's handlers answer every OAuth error but `server_error` with 400. A backend that is down or
 * hung (`temporarily_unavailable`, toOAuthError) is answered 503 with Retry-After instead, as the API
 * answers it: a client retries it later rather than giving up on a request it made right.
 */
function answerUnavailableAs503(res: ServerResponse): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const [chunk] = args;
    if (res.statusCode === 400 && !res.headersSent && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) {
      try {
        if ((JSON.parse(chunk.toString()) as { error?: unknown }).error === 'temporarily_unavailable') {
          res.statusCode = 503;
          res.setHeader('Retry-After', '1');
        }
      } catch {
        /* not JSON: an answer of another kind, left as it is */
      }
    }
    return end(...args);
  }) as ServerResponse['end'];
}

const asOAuth = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    throw toOAuthError(err);
  }
};

const decode = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString('utf8')) as OAuthClientInformationFull;

function tokensOf(res: { accessToken: string; expiresIn: number; refreshToken: string; scopes: string[] }): OAuthTokens {
  return {
    access_token: res.accessToken,
    token_type: 'Bearer',
    expires_in: res.expiresIn,
    refresh_token: res.refreshToken,
    scope: res.scopes.join(' '),
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** What the consent form carries from the authorization request to its answer. */
interface ConsentRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  resource?: string;
  scopes: string[];
}

/**
 * The consent page: the client's name and where it will be sent back, the scopes it asks for (each
 * one a checkbox, all when it asks for none), and the user's API key, which the core checks and never
 * hands to the client. Framed by nobody; it posts only to this origin and redirects only to the
 * client's registered redirect URI.
 */
function consentPage(req: ConsentRequest, error?: string): { html: string; csp: string } {
  const asked = req.scopes.length ? req.scopes : [...PERMISSIONS];
  const hidden = (name: string, value: string | undefined) =>
    value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const boxes = asked
    .map(
      (s) =>
        `<li><label><input type="checkbox" name="scope" value="${escapeHtml(s)}" checked> <code>${escapeHtml(s)}</code></label></li>`,
    )
    .join('');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${escapeHtml(req.clientName)} to use the feedback API</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a;background:#fff}
@media (prefers-color-scheme: dark){body{color:#eee;background:#161616}input[type=password]{background:#222;color:#eee}}
ul{list-style:none;padding:0;columns:2}label{cursor:pointer}input[type=password]{width:100%;padding:.5rem;font:inherit}
button{font:inherit;padding:.5rem 1rem;margin-right:.5rem}.error{color:#b00020;font-weight:600}</style></head>
<body><main>
<h1>Allow <em>${escapeHtml(req.clientName)}</em> to act for your API key?</h1>
<p>It will be sent back to <code>${escapeHtml(req.redirectUri)}</code> with a code for an access token that can do what you tick below, and only what your key may do. The key itself is never given to it. You can revoke the access at any time; revoking the key ends it too.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${CONSENT_PATH}">
${hidden('client_id', req.clientId)}${hidden('redirect_uri', req.redirectUri)}${hidden('code_challenge', req.codeChallenge)}${hidden('state', req.state)}${hidden('resource', req.resource)}
<fieldset><legend>Scopes</legend><ul>${boxes}</ul></fieldset>
<p><label for="key">Your API key</label><br><input id="key" name="api_key" type="password" autocomplete="off" required></p>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form></main></body></html>`;
  const csp = `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${redirectSource(req.redirectUri)}; frame-ancestors 'none'; base-uri 'none'`;
  return { html, csp };
}

/**
 * The CSP source that lets the form's answer redirect to `uri`: its origin for http(s), its scheme
 * for an app's own scheme (`vscode://...`, `cursor://...`: RFC 8252 native clients), whose origin is
 * the opaque "null" that no browser would match.
 */
export function redirectSource(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

/** The redirect back to the client: `code` or an error, with `state` and `iss` (RFC 9207). */
function backToClient(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set('iss', issuer);
  return url.href;
}

/**
 * Koa middleware of the sign-in: the SDK's handlers (an Express router per public base URL: one in
 * production, PUBLIC_BASE_URL; in development the request's loopback host) and the consent form's answer.
 */
export function createOAuthServer(deps: {
  oauth: Client<typeof OAuthService>;
  baseUrl: (ctx: GatewayContext) => string;
  /** Proxies in front of the gateway (TRUSTED_PROXY_HOPS), for the handlers' per-address rate limits. */
  trustedProxyHops: number;
  /** The consent form takes an API key: its failures count against the address, as the API's do. */
  failureLimit: FailureLimit;
  logger: Logger;
}) {
  const { oauth } = deps;

  /** A registered client, or undefined; a backend failure comes out as a DomainError (5xx: 503). */
  async function findClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    try {
      return decode((await oauth.getClient({ clientId })).metadata);
    } catch (err) {
      const known = fromConnectError(err);
      if (known?.status === 404) return undefined;
      throw known ?? err;
    }
  }

  const provider: OAuthServerProvider = {
    skipLocalPkceValidation: true, // the core checks the verifier against the code's challenge
    clientsStore: {
      getClient: (clientId) => asOAuth(() => findClient(clientId)),
      async registerClient(client) {
        return asOAuth(async () =>
          decode((await oauth.registerClient({ metadata: Buffer.from(JSON.stringify(client)) })).metadata),
        );
      },
    },
    async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: ExpressResponse) {
      const page = consentPage({
        clientId: client.client_id,
        clientName: client.client_name ?? client.client_id,
        redirectUri: params.redirectUri,
        codeChallenge: params.codeChallenge,
        state: params.state,
        resource: params.resource?.href,
        scopes: (params.scopes ?? []).filter((s) => (PERMISSIONS as readonly string[]).includes(s)),
      });
      res.setHeader('Content-Security-Policy', page.csp);
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).type('html').send(page.html);
    },
    async challengeForAuthorizationCode() {
      throw new InvalidRequestError('the code challenge is checked by the core'); // never called: skipLocalPkceValidation
    },
    async exchangeAuthorizationCode(client, code, codeVerifier, redirectUri, resource) {
      if (!codeVerifier) throw new InvalidRequestError('code_verifier is required (PKCE)');
      return asOAuth(async () =>
        tokensOf(
          await oauth.exchangeCode({
            code,
            clientId: client.client_id,
            redirectUri,
            codeVerifier,
            resource: resource?.href,
          }),
        ),
      );
    },
    async exchangeRefreshToken(client, refreshToken, scopes) {
      return asOAuth(async () =>
        tokensOf(await oauth.refresh({ refreshToken, clientId: client.client_id, scopes: scopes ?? [] })),
      );
    },
    async verifyAccessToken() {
      // The tool-protocol endpoint authenticates access tokens as it does keys (the core's Authenticate).
      throw new InvalidTokenError('not used');
    },
    async revokeToken(client, request) {
      await asOAuth(() => oauth.revoke({ token: request.token, clientId: client.client_id }));
    },
  };

  const apps = new Map<string, express.Express>();
  function appFor(base: string): express.Express {
    let app = apps.get(base);
    if (!app) {
      app = express();
      app.disable('x-powered-by');
      app.set('trust proxy', deps.trustedProxyHops);
      app.use(
        mcpAuthRouter({
          provider,
          issuerUrl: new URL(base),
          resourceServerUrl: new URL(`${base}/mcp`),
          scopesSupported: [...PERMISSIONS],
          resourceName: 'Feedback platform developer API (tool-protocol endpoint)',
          serviceDocumentationUrl: new URL(`${base}/api/v1/docs`),
        }),
      );
      if (apps.size >= 16) apps.clear(); // development hosts only (loopback spellings and ports)
      apps.set(base, app);
    }
    return app;
  }

  async function answerConsent(ctx: GatewayContext): Promise<void> {
    const type = ctx.get('content-type');
    if (!type.startsWith('application/x-www-form-urlencoded'))
      throw new DomainError('unsupported_media_type', 'the consent form is sent as application/x-www-form-urlencoded');
    const form = new URLSearchParams((await readRawBody(ctx, 64 * 1024)).toString('utf8'));
    const one = (name: string) => form.get(name) ?? undefined;
    const clientId = one('client_id') ?? '';
    const redirectUri = one('redirect_uri') ?? '';
    const client = await findClient(clientId);
    // Never redirect anywhere the client did not register: a forged form gets a plain error.
    if (!client || !client.redirect_uris.map(String).includes(redirectUri))
      throw new DomainError('validation_error', 'unknown client or redirect_uri', {
        problems: [{ path: '/redirect_uri', message: 'not registered for this client' }],
      });
    const issuer = new URL(deps.baseUrl(ctx)).href;
    const state = one('state');
    ctx.set('Cache-Control', 'no-store');
    if (one('decision') !== 'approve') {
      return ctx.redirect(
        backToClient(redirectUri, issuer, { error: 'access_denied', error_description: 'the user denied access', state }),
      );
    }
    const request: ConsentRequest = {
      clientId,
      clientName: client.client_name ?? clientId,
      redirectUri,
      codeChallenge: one('code_challenge') ?? '',
      state,
      resource: one('resource'),
      scopes: form.getAll('scope'),
    };
    const key = (one('api_key') ?? '').trim();
    const proof = { id: createHash('sha256').update(key).digest('base64'), wellFormed: apiKeyPrefixOf(key) !== undefined };
    try {
      const { code } = await deps.failureLimit(ctx, proof, () =>
        oauth.approve({
          key,
          clientId,
          scopes: request.scopes,
          redirectUri,
          codeChallenge: request.codeChallenge,
          resource: request.resource,
        }),
      );
      return ctx.redirect(backToClient(redirectUri, issuer, { code, state }));
    } catch (err) {
      const known = err instanceof DomainError ? err : fromConnectError(err);
      if (!known || known.status >= 500) throw known ?? err;
      // The user can fix it (a mistyped key, no scope the key holds): the page again, with why. An
      // address over its limit of failed authentications waits (429 with Retry-After), as on the API.
      const page = consentPage(request, known.message);
      ctx.status = known.status === 401 || known.status === 429 ? known.status : 400;
      if (known.status === 429) ctx.set('Retry-After', String(Number(known.details?.retryAfter ?? 60)));
      ctx.set('Content-Security-Policy', page.csp);
      ctx.type = 'html';
      ctx.body = page.html;
    }
  }

  /** Koa middleware: the OAuth endpoints and the consent form's answer; anything else goes on. */
  return async function oauthServer(ctx: GatewayContext, next: Next): Promise<void> {
    if (ctx.path === CONSENT_PATH) {
      nameRequest(ctx, CONSENT_PATH);
      if (ctx.method !== 'POST') {
        ctx.set('Allow', 'POST');
        throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
      }
      return answerConsent(ctx);
    }
    const path = (OAUTH_PATHS as readonly string[]).includes(ctx.path) ? ctx.path : undefined;
    if (!path) return void (await next());
    nameRequest(ctx, path);
    const app = appFor(deps.baseUrl(ctx));
    ctx.respond = false;
    answerUnavailableAs503(ctx.res);
    await new Promise<void>((resolve) => {
      const res = ctx.res;
      res.once('close', resolve);
      res.once('finish', resolve);
      // An Express app is a plain (req, res, next) handler: it dresses the request and answer itself.
      (app as unknown as (req: IncomingMessage, res: ServerResponse, next: () => void) => void)(ctx.req, res, () => {
        if (!res.headersSent) res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
        resolve();
      });
    });
    if (ctx.res.statusCode >= 500) deps.logger.warn({ path, status: ctx.res.statusCode }, 'OAuth endpoint failed');
  };
}
