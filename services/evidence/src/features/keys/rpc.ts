import type { Client, ServiceImpl } from '@connectrpc/connect';
import { DomainError } from '@cluster/platform';
import type { AuditService, EvidenceService, SessionService } from '@cluster/proto';
import type { createEvidenceKeyService } from './service.ts';

/** What the key settings need: the core's sessions and audit trail, and the keys. */
export interface KeySettingsDeps {
  sessions: Pick<Client<typeof SessionService>, 'authenticateSession'>;
  audit: Pick<Client<typeof AuditService>, 'recordAuditEvent'>;
  keys: ReturnType<typeof createEvidenceKeyService>;
}

/**
 * The evidence key settings (GET/POST /api/settings/evidence-key): for organization admins with
 * a settings session, which the core authenticates (unknown or expired: 401; not admin: 403).
 * Creating or rotating a key is an audit event of the core's trail, made by the session's user.
 */
export function keySettingsRpc(
  deps: KeySettingsDeps,
): Pick<ServiceImpl<typeof EvidenceService>, 'getEvidenceKey' | 'rotateEvidenceKey'> {
  const admin = async (token: string) => {
    const user = await deps.sessions.authenticateSession({ token });
    if (user.role !== 'admin') throw new DomainError('forbidden', 'evidence keys are managed by organization admins');
    return user;
  };
  return {
    async getEvidenceKey(req) {
      const user = await admin(req.sessionToken);
      return deps.keys.status(user.organizationId);
    },
    async rotateEvidenceKey(req) {
      const user = await admin(req.sessionToken);
      const { key, prefix, revokedPrefix } = await deps.keys.rotate(user.organizationId);
      await deps.audit.recordAuditEvent({
        actor: {
          organizationId: user.organizationId,
          userId: user.userId,
          role: user.role,
          scope: 'organization',
          apiKeyId: '',
          permissions: [],
        },
        entityType: 'evidence_key',
        action: revokedPrefix ? 'rotated' : 'created',
        entityId: user.organizationId,
        metadata: { prefix, ...(revokedPrefix ? { revokedPrefix } : {}) },
      });
      return { key, prefix };
    },
  };
}
