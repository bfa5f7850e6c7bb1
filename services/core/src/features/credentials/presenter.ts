import type { JsonObject } from '@bufbuild/protobuf';
import type { ApiKeyRow, KeyForMe } from './store.ts';

/** The spec's Me object of a key: the fields named here, never its hash. */
export function presentMe(row: KeyForMe): JsonObject {
  return {
    apiKeyId: row.id,
    keyName: row.name,
    keyPrefix: row.prefix,
    organizationId: row.organizationId,
    scope: row.scope,
    scopedProjectId: row.scopedProjectId,
    permissions: row.permissions && [...row.permissions],
    createdByUserId: row.createdByUserId,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

/** What `admin key create` prints: the key, shown this once (only its hash is stored). */
export function presentMintedKey(
  row: Pick<ApiKeyRow, 'id' | 'prefix'>,
  key: string,
): { id: string; key: string; prefix: string } {
  return { id: row.id, key, prefix: row.prefix };
}

/** What `admin key revoke` prints: the key and when it was revoked. */
export function presentRevokedKey(row: Pick<ApiKeyRow, 'id'>, revokedAt: Date): { id: string; revokedAt: string } {
  return { id: row.id, revokedAt: revokedAt.toISOString() };
}
