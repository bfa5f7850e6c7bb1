import { prepared, type Knex } from '@cluster/db';
import { DEFAULT_PERMISSIONS, grantablePermissions, isRole, type Permission } from '@cluster/contracts';
import { DomainError } from '@cluster/platform';
import type { Actor } from '@cluster/proto';
import { keyMatches, prefixOf } from './keys.ts';
import { requireActor } from '../lib/actor.ts';
import { toJson } from '../lib/json.ts';

/** Effective permissions: the key's explicit array narrowed to its creator's current role, or the role's defaults. */
export function effectivePermissions(role: string, explicit: string[] | null): Permission[] {
  if (!isRole(role)) return [];
  if (!explicit) return [...DEFAULT_PERMISSIONS[role]];
  const allowed = grantablePermissions(role);
  return explicit.filter((p): p is Permission => allowed.has(p as Permission));
}

/** lastUsedAt is a display value: written at most this often per key. */
const LAST_USED_EVERY_MS = 30_000;

export function createAuthService(db: Knex) {
  // When this process last wrote each key's lastUsedAt, so a busy key costs one UPDATE per
  // 30 s here rather than one (mostly matching no row) per request. Other replicas write
  // theirs; the statement's own condition keeps the column at one write per 30 s overall.
  const lastUsedWritten = new Map<string, number>();
  const touch = (keyId: string) => {
    const now = Date.now();
    if (now - (lastUsedWritten.get(keyId) ?? 0) < LAST_USED_EVERY_MS) return;
    if (lastUsedWritten.size > 100_000) lastUsedWritten.clear();
    lastUsedWritten.set(keyId, now);
    void db('api_keys')
      .where({ id: keyId })
      .andWhere((q) => q.whereNull('lastUsedAt').orWhere('lastUsedAt', '<', db.raw("now() - interval '30 seconds'")))
      .update({ lastUsedAt: db.fn.now() })
      .catch(() => lastUsedWritten.delete(keyId));
  };
  return {
    /** Resolves a presented key; 401 invalid_key / key_revoked. */
    async authenticate(key: string, requestId: string): Promise<{ actor: Actor; apiEnabled: boolean }> {
      const prefix = prefixOf(key);
      if (!prefix) throw new DomainError('invalid_key', 'API key not recognised');
      // Every request runs this: it is a prepared statement (planning the join cost five times
      // its execution), with its columns named so a migration that adds one cannot break it.
      const row = await db('api_keys as k')
        .join('users as u', 'u.id', 'k.createdByUserId')
        .join('organizations as o', 'o.id', 'k.organizationId')
        .where('k.prefix', prefix)
        .first(
          'k.id', 'k.organizationId', 'k.createdByUserId', 'k.scope', 'k.scopedProjectId', 'k.permissions', 'k.keyHash', 'k.revokedAt',
          'u.role as role', 'o.apiEnabled as apiEnabled',
        )
        .options(prepared('core-authenticate-v1'));
      if (!row || !keyMatches(key, row.keyHash)) throw new DomainError('invalid_key', 'API key not recognised');
      if (row.revokedAt) throw new DomainError('key_revoked', 'API key was revoked');
      // Off the request path.
      touch(row.id);
      return {
        apiEnabled: row.apiEnabled,
        actor: {
          $typeName: 'cluster.common.v1.Actor',
          apiKeyId: row.id,
          organizationId: row.organizationId,
          userId: row.createdByUserId,
          role: row.role,
          scope: row.scope,
          scopedProjectId: row.scopedProjectId ?? undefined,
          permissions: effectivePermissions(row.role, row.permissions),
          requestId,
        },
      };
    },

    /** The Me object of the spec. */
    async me(actorIn: Actor | undefined) {
      const actor = requireActor(actorIn);
      const row = await db('api_keys').where({ id: actor.apiKeyId }).first();
      if (!row) throw new DomainError('invalid_key', 'API key not recognised');
      return toJson({
        apiKeyId: row.id,
        keyName: row.name ?? null,
        keyPrefix: row.prefix ?? null,
        organizationId: row.organizationId,
        scope: row.scope,
        scopedProjectId: row.scopedProjectId ?? null,
        permissions: row.permissions ?? null,
        createdByUserId: row.createdByUserId,
        lastUsedAt: row.lastUsedAt ?? null,
      });
    },
  };
}
