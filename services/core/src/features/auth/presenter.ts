import type { JsonObject } from '@bufbuild/protobuf';
import { rowToJson } from '@cluster/platform';
import type { ApiKeyRow } from './store.ts';

/** The spec's Me object of a key: never its hash. */
export function presentMe(row: ApiKeyRow): JsonObject {
  return rowToJson({
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
}
