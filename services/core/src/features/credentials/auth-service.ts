import { DEFAULT_PERMISSIONS, apiKeyPrefixOf, grantablePermissions, isRole, type Permission } from '@cluster/contracts';
import { DomainError, claimsOf, requireActor, sameActor, type ActorClaims } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import type { Stores } from '../../stores.ts';
import type { KeyForAuth } from './store.ts';
import { createCurrentKeys } from './current-keys.ts';
import { keyMatches } from './key-secret.ts';
import { presentMe } from './presenter.ts';

/** Effective permissions: the key's explicit array narrowed to its creator's current role, or the role's defaults. */
export function effectivePermissions(role: string, explicit: string[] | null): Permission[] {
  if (!isRole(role)) return [];
  if (!explicit) return [...DEFAULT_PERMISSIONS[role]];
  const allowed = grantablePermissions(role);
  return explicit.filter((p): p is Permission => allowed.has(p as Permission));
}

/** The actor a key row grants. */
function claimsOfKey(row: KeyForAuth): ActorClaims {
  return claimsOf({
    apiKeyId: row.id,
    organizationId: row.organizationId,
    userId: row.createdByUserId,
    role: row.role,
    scope: row.scope,
    scopedProjectId: row.scopedProjectId ?? undefined,
    permissions: effectivePermissions(row.role, row.permissions),
  });
}

/** lastUsedAt is a display value: written at most this often per key. */
const LAST_USED_EVERY_MS = 30_000;

/** API key authentication for the gateway (every request) and GET /me. Rules only; SQL is in the store. */
export function createAuthService(stores: Pick<Stores, 'apiKeys'>, clock: { now: () => number } = { now: Date.now }) {
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
  return {
    /** Resolves a presented key; 401 invalid_key / key_revoked. `apiEnabled` false: the gateway answers 403. */
    async authenticate(key: string, requestId: string): Promise<{ actor: Actor; apiEnabled: boolean }> {
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
     * the gateway authorized the request with them, so the gateway authorizes again.
     */
    async currentActor(claimed: ActorClaims): Promise<ActorClaims> {
      const row = await currentKey(claimed.apiKeyId);
      if (!row) throw new DomainError('invalid_key', 'API key not recognised');
      if (row.revokedAt) throw new DomainError('key_revoked', 'API key was revoked');
      const current = claimsOfKey(row);
      if (!row.apiEnabled || !sameActor(current, claimed)) {
        throw new DomainError('actor_changed', "the key's grants changed during the request; send it again");
      }
      touch(row.id);
      return current;
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
