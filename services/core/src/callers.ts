import { AuditService, ReleaseEvidenceService, SessionService } from '@cluster/proto';
import type { MethodPolicy } from '@cluster/platform';

const RECORD_AUDIT_EVENT = `${AuditService.typeName}/RecordAuditEvent`;
const RELEASE_EVIDENCE = `${ReleaseEvidenceService.typeName}/`;
const SESSIONS = `${SessionService.typeName}/`;

/**
 * Who may call the core (docs/security.md): the gateway, for the API key whose actor its
 * token carries; the delivery service only to record the audit events of its own writes,
 * whose actor it verified when the write came in and forwards in the message; the evidence
 * service for a release's evidence facts (for the actor its gateway token carried), for who a
 * settings session belongs to, and to record the audit event of an evidence key rotation. A
 * code-host webhook the gateway forwards (CodeHostService) carries no actor: the organization's
 * signature on its body is its proof, which the core checks itself.
 */
export function corePolicy(method: string): MethodPolicy {
  // Delivery forwards the actor of a webhook write; evidence, the session user of a key rotation.
  if (method === RECORD_AUDIT_EVENT) return { callers: ['delivery', 'evidence'], actorFrom: 'message' };
  // Settings sessions carry no API key: the evidence service asks who a session's user is.
  if (method.startsWith(SESSIONS)) return { callers: ['evidence'], actorFrom: 'message' };
  if (method.startsWith(RELEASE_EVIDENCE)) return { callers: ['evidence'] };
  return { callers: ['gateway'] };
}
