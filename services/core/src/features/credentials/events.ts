import type { ActorEvent } from '../../shared/write.ts';
import type { ApiKeyRow } from './store.ts';

/** api_key.created: made by the key's creating user (the operator mints on their behalf). */
export function apiKeyCreatedEvent(row: ApiKeyRow, createdByUserId: string): ActorEvent {
  return {
    eventName: 'api_key.created',
    entityType: 'api_key',
    entityId: row.id,
    actorUserId: createdByUserId,
    projectId: row.scopedProjectId,
    payload: {
      apiKeyId: row.id,
      organizationId: row.organizationId,
      prefix: row.prefix,
      scope: row.scope,
      scopedProjectId: row.scopedProjectId,
      createdByUserId,
    },
  };
}

/** api_key.revoked: by the operator (no acting user). */
export function apiKeyRevokedEvent(row: ApiKeyRow): ActorEvent {
  return {
    eventName: 'api_key.revoked',
    entityType: 'api_key',
    entityId: row.id,
    actorUserId: null,
    projectId: row.scopedProjectId,
    payload: { apiKeyId: row.id, organizationId: row.organizationId, prefix: row.prefix },
  };
}
