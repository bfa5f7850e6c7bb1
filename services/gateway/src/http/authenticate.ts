import { createHash } from 'node:crypto';
import type { Client } from '@connectrpc/connect';
import { apiKeyPrefixOf, oauthTokenKind } from '@cluster/contracts';
import { DomainError } from '@cluster/platform';
import type { Actor, AuthService } from '@cluster/proto';
import type { GatewayContext } from './context.ts';
import type { FailureLimit } from './failure-limit.ts';

/** The API key a request carries: `Authorization: Bearer <key>`, else `X-API-Key`; empty when neither. */
export function apiKeyOf(authorization: string, xApiKey: string): string {
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
  return bearer || xApiKey.trim();
}

/** A request's authenticated key. */
export interface Authenticated {
  actor: Actor;
  /** Whether the key's organization has the v1 API on (off: 403). */
  apiEnabled: boolean;
  /**
   * Taken from the cache: as the key was when last checked, not yet checked for this
   * request. The core checks it again on the call itself (it refuses a revoked key, and
   * answers actor_changed for changed grants); a refusal decided here with it is only
   * answered after a fresh check (app.ts).
   */
  cached: boolean;
}

export interface AuthenticatorOptions {
  auth: Client<typeof AuthService>;
  /** Failed authentications per client address: once over, a failed check answers 429, a valid key goes through. */
  failureLimit: FailureLimit;
  /** How long a key's actor is reused; the core re-checks it on every call regardless. */
  cacheTtlMs?: number;
  clock?: () => number;
}

const CACHE_MAX = 10_000;

/**
 * Pipeline step 2: the actor of the request's API key. 401 missing_key without one; the
 * core answers invalid_key or key_revoked. A key seen in the last minute is answered from
 * memory (`cached`), so a known key's request is one RPC, not two. A fresh check runs under the
 * client address's limit of failed authentications (failure-limit.ts): once the address is over it,
 * a key that fails answers 429, one that authenticates goes through.
 */
export function createAuthenticator(opts: AuthenticatorOptions) {
  const { auth, failureLimit, cacheTtlMs = 60_000, clock = Date.now } = opts;
  // By a hash of the key, so no key sits in memory longer than its request.
  const cache = new Map<string, { actor: Actor; apiEnabled: boolean; until: number }>();
  const idOf = (key: string) => createHash('sha256').update(key).digest('base64');

  async function fresh(ctx: GatewayContext, key: string, id: string): Promise<Authenticated> {
    return failureLimit(
      ctx,
      { id, wellFormed: apiKeyPrefixOf(key) !== undefined || oauthTokenKind(key) === 'access' },
      async () => {
        try {
          const res = await auth.authenticate({ key, requestId: ctx.state.requestId });
          const actor = res.actor!;
          if (cache.size >= CACHE_MAX) cache.clear();
          cache.set(id, { actor, apiEnabled: res.apiEnabled, until: clock() + cacheTtlMs });
          return { actor, apiEnabled: res.apiEnabled, cached: false };
        } catch (err) {
          cache.delete(id);
          throw err;
        }
      },
    );
  }

  return {
    /** The request's actor: from the cache unless `fresh` is asked for or it has expired. */
    async authenticate(
      ctx: GatewayContext,
      { fresh: mustBeFresh, accessTokens = false }: { fresh: boolean; accessTokens?: boolean },
    ): Promise<Authenticated> {
      const key = apiKeyOf(ctx.get('authorization'), ctx.get('x-api-key'));
      if (!key) throw new DomainError('missing_key', 'no API key: send Authorization: Bearer <key> or X-API-Key');
      // An OAuth access token's audience is the tool-protocol endpoint (its resource, docs/mcp.md): nowhere else.
      if (!accessTokens && oauthTokenKind(key) !== undefined)
        throw new DomainError('invalid_key', 'an OAuth token is for the tool-protocol endpoint (/mcp) only; send an API key');
      const id = idOf(key);
      const hit = mustBeFresh ? undefined : cache.get(id);
      if (hit && hit.until > clock()) return { actor: hit.actor, apiEnabled: hit.apiEnabled, cached: true };
      return fresh(ctx, key, id);
    },
    /** Drops the request's key from the cache (the core refused it, or its grants changed). */
    forget(ctx: GatewayContext): void {
      cache.delete(idOf(apiKeyOf(ctx.get('authorization'), ctx.get('x-api-key'))));
    },
  };
}
export type Authenticator = ReturnType<typeof createAuthenticator>;
