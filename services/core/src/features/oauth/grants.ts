import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { apiKeyPrefixOf, type Permission } from '@cluster/contracts';
import { DomainError } from '@cluster/platform';
import type { ApiKeyStore, KeyForAuth } from '../credentials/store.ts';
import { keyMatches } from '../credentials/key-secret.ts';
import type { GrantRow, OAuthStore } from './store.ts';

/** How long a code, an access token and a refresh token live (docs/mcp.md, "Signing in"). */
export const CODE_TTL_MS = 60_000;
export const ACCESS_TTL_S = 3600;
export const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
/**
 * How long a dead grant (revoked, code lapsed unused, refresh expired) and a client without grants are
 * kept before the core's housekeeping deletes them (OAuthStore.prune): long enough that a reused code or
 * refresh token is still recognised and revokes, short enough that open registration cannot grow the table forever.
 */
export const OAUTH_KEEP_MS = 30 * 24 * 3600 * 1000;

/** The OAuth error a refusal stands for (RFC 6749 section 5.2), in the DomainError's details: the gateway answers it. */
export type OAuthErrorCode = 'invalid_grant' | 'invalid_scope' | 'invalid_client' | 'invalid_request' | 'access_denied';

export const oauthError = (error: OAuthErrorCode, message: string): DomainError =>
  new DomainError('validation_error', message, { oauthError: error });

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();
const token = (kind: 'at' | 'rt') => `fbk_${kind}_${randomBytes(32).toString('base64url')}`;

/** The tokens an exchange gives, as the token endpoint answers them. */
export interface IssuedTokens {
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
  scopes: string[];
}

/**
 * The rules of the tool-protocol endpoint's sign-in (OAuth 2.1 with PKCE; docs/mcp.md, "Signing in").
 * The user approves a client on the consent page with their API key: the grant gets the scopes asked
 * for that the key holds (all of its permissions when none are asked for). A code is used once (a second
 * use revokes the grant), a refresh token once (rotation; a reused one revokes the grant). A grant's
 * tokens act as its key narrowed to its scopes, and only while the key itself is valid.
 */
export function createOAuthGrants(deps: {
  oauth: OAuthStore;
  apiKeys: Pick<ApiKeyStore, 'findForAuth' | 'findCurrent'>;
  /** The key's effective permissions (auth-service.ts). */
  permissionsOf: (key: KeyForAuth) => Permission[];
  clock?: () => Date;
}) {
  const { oauth } = deps;
  const now = deps.clock ?? (() => new Date());

  async function issue(grant: GrantRow, previousRefreshHash: Buffer | null): Promise<IssuedTokens> {
    const accessToken = token('at');
    const refreshToken = token('rt');
    const at = now().getTime();
    const ok = await oauth.setTokens(grant.id, {
      accessHash: sha256(accessToken),
      accessExpiresAt: new Date(at + ACCESS_TTL_S * 1000),
      refreshHash: sha256(refreshToken),
      refreshExpiresAt: new Date(at + REFRESH_TTL_MS),
      previousRefreshHash,
    });
    if (!ok) throw oauthError('invalid_grant', 'the grant was revoked or its refresh token already used');
    return { accessToken, expiresIn: ACCESS_TTL_S, refreshToken, scopes: grant.scopes };
  }

  /** The grant's key, if it is still valid. */
  async function keyOf(grant: GrantRow): Promise<KeyForAuth | undefined> {
    const [key] = await deps.apiKeys.findCurrent([grant.apiKeyId]);
    return key && !key.revokedAt && key.apiEnabled ? key : undefined;
  }

  /** A registered client's metadata; 404 for an unknown id. */
  async function client(clientId: string): Promise<Record<string, unknown>> {
    const found = clientId ? await oauth.findClient(clientId) : undefined;
    if (!found) throw new DomainError('not_found', 'no such OAuth client');
    return found as Record<string, unknown>;
  }

  const live = (g: GrantRow | undefined, t = now()) =>
    g && !g.revokedAt && g.refreshExpiresAt !== null && g.refreshExpiresAt > t ? g : undefined;

  return {
    async registerClient(metadata: Record<string, unknown>): Promise<void> {
      if (typeof metadata.client_id !== 'string' || !metadata.client_id) throw oauthError('invalid_request', 'client_id missing');
      await oauth.insertClient(metadata.client_id, metadata);
    },

    client,

    /** The consent: the user's key approves `clientId` for the scopes it holds of those asked for. */
    async approve(req: {
      key: string;
      clientId: string;
      scopes: string[];
      redirectUri: string;
      codeChallenge: string;
      resource?: string;
    }): Promise<{ code: string; scopes: string[] }> {
      const prefix = apiKeyPrefixOf(req.key);
      const key = prefix ? await deps.apiKeys.findForAuth(prefix) : undefined;
      if (!key || !keyMatches(req.key, key.keyHash)) throw new DomainError('invalid_key', 'API key not recognised');
      if (key.revokedAt) throw new DomainError('key_revoked', 'API key was revoked');
      if (!key.apiEnabled) throw new DomainError('forbidden', "the key's organization has the API turned off");
      const registered = await client(req.clientId);
      const uris = Array.isArray(registered.redirect_uris) ? (registered.redirect_uris as string[]) : [];
      if (!uris.includes(req.redirectUri)) throw oauthError('invalid_request', 'redirect_uri is not registered for this client');
      if (!/^[A-Za-z0-9_-]{43}$/.test(req.codeChallenge))
        throw oauthError('invalid_request', 'code_challenge must be an S256 challenge (43 base64url characters)');
      const held = deps.permissionsOf(key);
      const scopes = req.scopes.length ? held.filter((p) => req.scopes.includes(p)) : held;
      if (!scopes.length) throw oauthError('invalid_scope', 'the key holds none of the scopes asked for');
      const code = randomBytes(32).toString('base64url');
      await oauth.insertGrant({
        clientId: req.clientId,
        apiKeyId: key.id,
        organizationId: key.organizationId,
        scopes,
        redirectUri: req.redirectUri,
        codeChallenge: req.codeChallenge,
        resource: req.resource ?? null,
        codeHash: sha256(code),
        codeExpiresAt: new Date(now().getTime() + CODE_TTL_MS),
      });
      return { code, scopes };
    },

    /** authorization_code: the code once, for its client and redirect URI, with the PKCE verifier. */
    async exchangeCode(req: {
      code: string;
      clientId: string;
      redirectUri?: string;
      codeVerifier: string;
      resource?: string;
    }): Promise<IssuedTokens> {
      const codeHash = sha256(req.code);
      const grant = await oauth.useCode(codeHash, now());
      if (!grant) {
        // A code presented again: what it gave is revoked (RFC 6749 section 4.1.2).
        const earlier = await oauth.findByCode(codeHash);
        if (earlier?.codeUsedAt) await oauth.revoke(earlier.id, now());
        throw oauthError('invalid_grant', 'the code is unknown, expired or already used');
      }
      const refuse = async (why: string) => {
        await oauth.revoke(grant.id, now());
        return oauthError('invalid_grant', why);
      };
      if (grant.clientId !== req.clientId) throw await refuse('the code was issued to another client');
      if (req.redirectUri !== undefined && req.redirectUri !== grant.redirectUri)
        throw await refuse('redirect_uri differs from the authorization request');
      if (req.resource && grant.resource && req.resource !== grant.resource)
        throw await refuse('resource differs from the authorization request');
      const challenge = createHash('sha256').update(req.codeVerifier, 'ascii').digest();
      const expected = Buffer.from(grant.codeChallenge, 'base64url');
      if (expected.length !== challenge.length || !timingSafeEqual(expected, challenge))
        throw await refuse('the code_verifier does not match the code_challenge');
      if (!(await keyOf(grant))) throw await refuse('the API key that approved this client is no longer valid');
      return issue(grant, null);
    },

    /** refresh_token: rotated on every use; a refresh token used twice revokes its grant. */
    async refresh(req: { refreshToken: string; clientId: string; scopes: string[] }): Promise<IssuedTokens> {
      const hash = sha256(req.refreshToken);
      const found = await oauth.findByRefresh(hash);
      if (!found || found.grant.clientId !== req.clientId) throw oauthError('invalid_grant', 'unknown refresh token');
      if (!found.current) {
        await oauth.revoke(found.grant.id, now());
        throw oauthError('invalid_grant', 'this refresh token was already used: the grant is revoked, sign in again');
      }
      const grant = live(found.grant);
      if (!grant) throw oauthError('invalid_grant', 'the grant was revoked or has expired: sign in again');
      if (!(await keyOf(grant))) throw oauthError('invalid_grant', 'the API key that approved this client is no longer valid');
      const wider = req.scopes.filter((s) => !grant.scopes.includes(s));
      if (wider.length) throw oauthError('invalid_scope', `not granted: ${wider.join(' ')}`);
      // A narrower ask gets the grant's scopes all the same, which the answer's `scope` says (RFC 6749 5.1).
      return issue(grant, hash);
    },

    /** RFC 7009: revokes the grant of the client's access or refresh token; anything else is ignored. */
    async revoke(req: { token: string; clientId: string }): Promise<void> {
      const hash = sha256(req.token);
      const grant = (await oauth.findByAccess(hash)) ?? (await oauth.findByRefresh(hash))?.grant;
      if (grant && grant.clientId === req.clientId) await oauth.revoke(grant.id, now());
    },

    /** The live grant of an access token (for Authenticate), or undefined. */
    async grantOfAccessToken(accessToken: string): Promise<GrantRow | undefined> {
      const grant = await oauth.findByAccess(sha256(accessToken));
      const t = now();
      return grant && live(grant, t) && grant.accessExpiresAt && grant.accessExpiresAt > t ? grant : undefined;
    },

    /** A grant by id while it is live (a service token's actor names it), or undefined. */
    async liveGrant(grantId: string): Promise<GrantRow | undefined> {
      return live(await oauth.findById(grantId));
    },
  };
}

export type OAuthGrants = ReturnType<typeof createOAuthGrants>;
