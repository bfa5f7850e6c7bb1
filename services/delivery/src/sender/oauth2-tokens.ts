import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { request, type Dispatcher } from 'undici';
import type { ReceiverAuth } from './receiver.ts';

type OAuth2Auth = Extract<ReceiverAuth, { type: 'oauth2' }>;

/** A token endpoint's answer is read to this many bytes at most. */
const MAX_TOKEN_RESPONSE_BYTES = 65_536;
/** How long a token without `expires_in` is used (a 401 refreshes it sooner). */
export const DEFAULT_TOKEN_LIFETIME_MS = 300_000;
/** Cached tokens kept per replica; beyond that the oldest goes. */
const MAX_CACHED = 10_000;

/**
 * When a token is refreshed: shortly before it expires, by a tenth of its lifetime and at most a
 * minute, so that a delivery never goes out with a token about to lapse in flight.
 */
export function refreshAfterMs(expiresInSeconds: number | undefined): number {
  if (expiresInSeconds === undefined || !Number.isFinite(expiresInSeconds) || expiresInSeconds <= 0)
    return DEFAULT_TOKEN_LIFETIME_MS;
  const lifetime = expiresInSeconds * 1000;
  return lifetime - Math.min(60_000, lifetime / 10);
}

/** OAuth2 client-credentials tokens of the subscriptions of one delivery replica (docs/webhooks.md, "OAuth2"). */
export interface TokenSource {
  /** A token for the subscription's settings: cached until shortly before it expires, fetched otherwise (one fetch at a time per key). */
  token(subscriptionId: string, auth: OAuth2Auth): Promise<string>;
  /** Forgets `token` (the receiver answered 401 to it), so the next call fetches a new one. */
  invalidate(subscriptionId: string, auth: OAuth2Auth, token: string): void;
}

/** Why a token could not be had: the attempt fails with this message and is retried like any failure. */
export class TokenError extends Error {}

function describe(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError)
    return `${err.error}${err.error_description ? `: ${err.error_description}` : ''} (HTTP ${err.status})`;
  if (err instanceof oauth.WWWAuthenticateChallengeError)
    return `HTTP ${err.status}, ${err.cause.map((c) => c.scheme).join(', ')} challenge`;
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  const message = e.cause?.message ?? e.message ?? String(err);
  return code ? `${code}: ${message}` : message;
}

/**
 * The token source of a replica: the client-credentials grant of oauth4webapi, its requests sent over
 * `dispatcher` (the sender's agent, whose every connection passes the SSRF guard), within `timeoutMs`.
 * Tokens are cached per subscription and settings (a changed secret or scope is another key).
 */
export function createTokenSource(opts: {
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** Whether a token URL may be plain http (development only; address-guard.ts refuses it in production). */
  allowHttp: boolean;
  /** Why the token URL may not be called now (the sender's precheck), or undefined. */
  precheck(url: URL): string | undefined;
}): TokenSource {
  const cache = new Map<string, { token: string; refreshAt: number }>();
  const inFlight = new Map<string, Promise<string>>();
  const keyOf = (subscriptionId: string, auth: OAuth2Auth) =>
    `${subscriptionId}:${createHash('sha256')
      .update(JSON.stringify([auth.tokenUrl, auth.clientId, auth.clientSecret, auth.scope, auth.audience]))
      .digest('base64url')}`;

  /** oauth4webapi's fetch: undici over the guarded agent, answered as a web Response with a bounded body. */
  const guardedFetch = async (url: string, init: oauth.CustomFetchOptions<'POST', URLSearchParams>): Promise<Response> => {
    const res = await request(url, {
      method: 'POST',
      headers: init.headers,
      body: init.body?.toString(),
      dispatcher: opts.dispatcher,
      signal: init.signal,
    });
    const chunks: Buffer[] = [];
    let read = 0;
    try {
      for await (const chunk of res.body) {
        chunks.push(chunk as Buffer);
        read += (chunk as Buffer).length;
        if (read > MAX_TOKEN_RESPONSE_BYTES)
          throw new TokenError(`token endpoint answer exceeds ${MAX_TOKEN_RESPONSE_BYTES} bytes`);
      }
    } finally {
      res.body.destroy();
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
    }
    const noBody = [204, 205, 304].includes(res.statusCode);
    return new Response(noBody ? null : Buffer.concat(chunks), { status: res.statusCode, headers });
  };

  async function fetchToken(auth: OAuth2Auth): Promise<{ token: string; refreshAt: number }> {
    let url: URL;
    try {
      url = new URL(auth.tokenUrl);
    } catch {
      throw new TokenError('oauth2: invalid token URL');
    }
    const refused = opts.precheck(url);
    if (refused) throw new TokenError(`oauth2 token URL: ${refused}`);
    const as: oauth.AuthorizationServer = { issuer: url.origin, token_endpoint: url.href };
    const client: oauth.Client = { client_id: auth.clientId };
    const parameters = new URLSearchParams();
    if (auth.scope) parameters.set('scope', auth.scope);
    if (auth.audience) parameters.set('audience', auth.audience);
    try {
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(auth.clientSecret),
        parameters,
        {
          [oauth.customFetch]: guardedFetch,
          [oauth.allowInsecureRequests]: opts.allowHttp,
          signal: AbortSignal.timeout(opts.timeoutMs),
        },
      );
      const result = await oauth.processClientCredentialsResponse(as, client, response);
      return { token: result.access_token, refreshAt: Date.now() + refreshAfterMs(result.expires_in) };
    } catch (err) {
      if (err instanceof TokenError) throw err;
      throw new TokenError(`oauth2 token request failed: ${describe(err)}`);
    }
  }

  return {
    async token(subscriptionId, auth) {
      const key = keyOf(subscriptionId, auth);
      const cached = cache.get(key);
      if (cached && cached.refreshAt > Date.now()) return cached.token;
      let pending = inFlight.get(key);
      if (!pending) {
        pending = fetchToken(auth)
          .then((got) => {
            cache.delete(key);
            if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
            cache.set(key, got);
            return got.token;
          })
          .finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      return pending;
    },
    invalidate(subscriptionId, auth, token) {
      const key = keyOf(subscriptionId, auth);
      if (cache.get(key)?.token === token) cache.delete(key);
    },
  };
}
