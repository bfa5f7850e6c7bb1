import { AuditService, ReleaseEvidenceService } from '@cluster/proto';
import type { MethodPolicy } from '@cluster/platform';

const RECORD_AUDIT_EVENT = `${AuditService.typeName}/RecordAuditEvent`;
const RELEASE_EVIDENCE = `${ReleaseEvidenceService.typeName}/`;

/**
 * Who may call the core (docs/security.md): the gateway, for the API key whose actor its
 * token carries; the delivery service only to record the audit events of its own writes,
 * whose actor it verified when the write came in and forwards in the message; the evidence
 * service only for a release's evidence facts, for the actor its gateway token carried.
 */
export function corePolicy(method: string): MethodPolicy {
  if (method === RECORD_AUDIT_EVENT) return { callers: ['delivery'], actorFrom: 'message' };
  if (method.startsWith(RELEASE_EVIDENCE)) return { callers: ['evidence'] };
  return { callers: ['gateway'] };
}
