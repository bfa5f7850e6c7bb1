import { AuditService, AuthService, ReleaseEvidenceService, SessionService } from '@cluster/proto';
import type { MethodPolicy, ServiceName } from '@cluster/platform';

const RECORD_AUDIT_EVENT = `${AuditService.typeName}/RecordAuditEvent`;
const RELEASE_EVIDENCE = `${ReleaseEvidenceService.typeName}/`;
const SESSIONS = `${SessionService.typeName}/`;
const CONFIRM_ACTOR = `${AuthService.typeName}/ConfirmActor`;

/**
 * What each service may record in an organization's audit trail (AuditService/RecordAuditEvent): the
 * entity types of its own writes, so a service's token cannot put an entry's approval in the trail.
 */
export const AUDIT_ENTITY_TYPES: Readonly<Partial<Record<ServiceName, readonly string[]>>> = {
  delivery: ['webhook_subscription', 'webhook_delivery'],
  evidence: ['evidence_key'],
};

/**
 * Who may call the core (docs/security.md): the gateway, for the API key whose actor its
 * token carries; the delivery service to record the audit events of its own writes, whose
 * actor it verified when the write came in and signs its token for, and to confirm that a
 * gateway token's actor is its key's current one (ConfirmActor); the evidence
 * service for a release's evidence facts (for the actor its gateway token carried), for who a
 * settings session belongs to, and to record the audit event of an evidence key rotation. A
 * code-host webhook the gateway forwards (CodeHostService) carries no actor: the organization's
 * signature on its body is its proof, which the core checks itself.
 */
export function corePolicy(method: string): MethodPolicy {
  // Delivery forwards the actor of a webhook write; evidence, the session user of a key rotation: the
  // actor its token carries (signed), so a record lands in that actor's organization's trail only.
  if (method === RECORD_AUDIT_EVENT) return { callers: Object.keys(AUDIT_ENTITY_TYPES) as ServiceName[], actorFrom: 'signed' };
  // Settings sessions carry no API key: the evidence service asks who a session's user is.
  if (method.startsWith(SESSIONS)) return { callers: ['evidence'], actorFrom: 'message' };
  if (method.startsWith(RELEASE_EVIDENCE)) return { callers: ['evidence'] };
  // Delivery owns no keys: it asks whether the actor its gateway token carries is its key's current one.
  if (method === CONFIRM_ACTOR) return { callers: ['delivery'] };
  return { callers: ['gateway'] };
}
