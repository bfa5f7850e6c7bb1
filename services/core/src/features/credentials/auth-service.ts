import {
  DEFAULT_PERMISSIONS,
  apiKeyPrefixOf,
  grantablePermissions,
  isRole,
  oauthTokenKind,
  type Permission,
} from '@cluster/contracts';
import { DomainError, claimsOf, requireActor, sameActor, type ActorClaims } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Stores } from '../../stores.ts';
import type { KeyForAuth } from './store.ts';
import { createCurrentKeys } from './current-keys.ts';
import { keyMatches } from './key-secret.ts';
import { presentMe } from './presenter.ts';
import type { OAuthGrants } from '../oauth/grants.ts';
import type { GrantRow } from '../oauth/store.ts';

/** Effective permissions: the key's explicit array narrowed to its creator's current role, or the role's defaults. */
export function effectivePermissions(role: string, explicit: string[] | null): Permission[] {
  if (!isRole(role)) return [];
  if (!explicit) return [...DEFAULT_PERMISSIONS[role]];
  const allowed = grantablePermissions(role);
  return explicit.filter((p): p is Permission => allowed.has(p as Permission));
}

/** The actor a key row grants; through an OAuth grant, narrowed to the grant's scopes (and naming it). */
function claimsOfKey(row: KeyForAuth, grant?: Pick<GrantRow, 'id' | 'scopes'>): ActorClaims {
  const permissions = effectivePermissions(row.role, row.permissions);
  return claimsOf({
    apiKeyId: row.id,
    organizationId: row.organizationId,
    userId: row.createdByUserId,
    role: row.role,
    scope: row.scope,
    scopedProjectId: row.scopedProjectId ?? undefined,
    permissions: grant ? permissions.filter((p) => grant.scopes.includes(p)) : permissions,
    ...(grant ? { grantId: grant.id } : {}),
  });
}

/**
 * Whether `claimed` asks for no more than the key grants (`current`): the same key, organization, user
 * and role, some of its permissions, and its scope or, for an organization-wide key, one project. A
 * portal session (docs/portal.md) acts for the key that minted it with such a narrower actor, which
 * names the session (portalSessionId) for the audit records of its writes.
 */
export function narrowerActor(current: ActorClaims, claimed: ActorClaims): boolean {
  if (sameActor(current, claimed)) return true;
  const same = (['apiKeyId', 'organizationId', 'userId', 'role'] as const).every((f) => current[f] === claimed[f]);
  const permissions = claimed.permissions.every((p) => current.permissions.includes(p));
  const scope =
    (claimed.scope === current.scope && claimed.scopedProjectId === current.scopedProjectId) ||
    (current.scope === 'organization' && claimed.scope === 'project' && Boolean(claimed.scopedProjectId));
  // A portal session names itself for the audit (docs/security.md, "Portal sessions"); it never
  // rides on an OAuth grant's actor, which no portal session is minted from.
  const session = !claimed.portalSessionId || !claimed.grantId;
  return same && permissions && scope && session;
}

/** lastUsedAt is a display value: written at most this often per key. */
const LAST_USED_EVERY_MS = 30_000;

/** API key authentication for the gateway (every request) and GET /me. Rules only; SQL is in the store. */
export function createAuthService(
  stores: Pick<Stores, 'apiKeys'>,
  clock: { now: () => number } = { now: Date.now },
  grants?: Pick<OAuthGrants, 'grantOfAccessToken' | 'liveGrant'>,
) {
  // When this process last wrote each key's lastUsedAt, so a busy key costs one UPDATE per
  // 30 s here rather than one (mostly matching no row) per request. Other replicas write
  // theirs; the statement's own condition keeps the column at one write per 30 s overall.
  const lastUsedWritten = new Map<string, number>();
  const touch = (keyId: string) => {
    const now = clock.now();
    if (now - (lastUsedWritten.get(keyId) ?? 0) < LAST_USED_EVERY_MS) return;
    if (lastUsedWritten.size > 100_000) lastUsedWritten.clear();
    lastUsedWritten.set(keyId, now);
    void stores.apiKeys.touchLastUsed(keyId).catch(() => lastUsedWritten.delete(keyId));
  };
  const currentKey = createCurrentKeys((ids) => stores.apiKeys.findCurrent(ids));

  /** An OAuth access token (docs/mcp.md, "Signing in"): its grant's key, narrowed to the grant. */
  async function authenticateAccessToken(token: string, requestId: string): Promise<{ actor: Actor; apiEnabled: boolean }> {
    const grant = await grants!.grantOfAccessToken(token);
    if (!grant) throw new DomainError('invalid_key', 'access token not recognised or expired');
    const row = await currentKey(grant.apiKeyId);
    if (!row) throw new DomainError('invalid_key', 'access token not recognised or expired');
    if (row.revokedAt) throw new DomainError('key_revoked', 'the API key behind this access token was revoked');
    touch(row.id);
    return { apiEnabled: row.apiEnabled, actor: { $typeName: 'cluster.common.v1.Actor', ...claimsOfKey(row, grant), requestId } };
  }
  return {
    /** Resolves a presented key; 401 invalid_key / key_revoked. `apiEnabled` false: the gateway answers 403. */
    async authenticate(key: string, requestId: string): Promise<{ actor: Actor; apiEnabled: boolean }> {
      if (grants && oauthTokenKind(key) === 'access') return authenticateAccessToken(key, requestId);
      const prefix = apiKeyPrefixOf(key);
      if (!prefix) throw new DomainError('invalid_key', 'API key not recognised');
      const row = await stores.apiKeys.findForAuth(prefix);
      if (!row || !keyMatches(key, row.keyHash)) throw new DomainError('invalid_key', 'API key not recognised');
      if (row.revokedAt) throw new DomainError('key_revoked', 'API key was revoked');
      // Off the request path.
      touch(row.id);
      return { apiEnabled: row.apiEnabled, actor: { $typeName: 'cluster.common.v1.Actor', ...claimsOfKey(row), requestId } };
    },

    /**
     * The key's actor as it is now, for a service token's actor (every call the gateway makes
     * for a key): 401 when the key is revoked or gone; 409 actor_changed, before anything runs,
     * when its grants (role, scope, permissions) or its organization's API switch changed since
     * the gateway authorized the request with them, so the gateway authorizes again. An actor narrower
     * than the key's (a portal session's: narrowerActor) is confirmed as it is, never widened; a portal
     * session's actor while the organization's API is off is 403 forbidden, as the gateway answers a key.
     */
    async currentActor(claimed: ActorClaims): Promise<ActorClaims> {
      const row = await currentKey(claimed.apiKeyId);
      if (!row) throw new DomainError('invalid_key', 'API key not recognised');
      if (row.revokedAt) throw new DomainError('key_revoked', 'API key was revoked');
      const grant = claimed.grantId ? await grants?.liveGrant(claimed.grantId) : undefined;
      if (claimed.grantId && grant?.apiKeyId !== row.id)
        throw new DomainError('invalid_key', 'the OAuth grant was revoked or has expired');
      // Through a grant, the key narrowed to its scopes is the most the actor may claim.
      const current = claimsOfKey(row, grant);
      // A portal session's call has no key to authenticate again, so the gateway cannot turn actor_changed
      // into the spec's answer to a switched-off API: the core gives it (403 forbidden: docs/portal.md, "The portal's API").
      if (!row.apiEnabled && claimed.portalSessionId)
        throw new DomainError('forbidden', 'the v1 API is disabled for this organization');
      if (!row.apiEnabled || !narrowerActor(current, claimed)) {
        throw new DomainError('actor_changed', "the key's grants changed during the request; send it again");
      }
      touch(row.id);
      return claimsOf(claimed);
    },

    /** The Me object of the spec. */
    async me(actorIn: Actor | undefined) {
      const actor = requireActor(actorIn);
      const row = await stores.apiKeys.findForMe(actor.apiKeyId);
      if (!row) throw new DomainError('invalid_key', 'API key not recognised');
      return presentMe(row);
    },
  };
}
