import { AuditService } from '@cluster/proto';
import type { MethodPolicy } from '@cluster/platform';

const RECORD_AUDIT_EVENT = `${AuditService.typeName}/RecordAuditEvent`;

/**
 * Who may call the core (docs/security.md): the gateway, for the API key whose actor its
 * token carries; the delivery service only to record the audit events of its own writes,
 * whose actor it verified when the write came in and forwards in the message.
 */
export function corePolicy(method: string): MethodPolicy {
  if (method === RECORD_AUDIT_EVENT) return { callers: ['delivery'], actorFrom: 'message' };
  return { callers: ['gateway'] };
}
