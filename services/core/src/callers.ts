import { AuditService, AuthService, CodeHostService, OAuthService, ReleaseEvidenceService, SessionService } from '@cluster/proto';
import { servedRpcs, type InternalRpcs, type ServiceName } from '@cluster/platform';

/**
 * What each service may record in an organization's audit trail (AuditService/RecordAuditEvent): the
 * entity types of its own writes, so a service's token cannot put an entry's approval in the trail.
 */
export const AUDIT_ENTITY_TYPES: Readonly<Partial<Record<ServiceName, readonly string[]>>> = {
  delivery: ['webhook_subscription', 'webhook_delivery', 'portal_session', 'portal_settings'],
  evidence: ['evidence_key'],
};

/**
 * Who may call the core besides the gateway for the operations of the table (docs/security.md):
 * the gateway, to authenticate an API key and to forward a code-host webhook (CodeHostService: it
 * carries no actor; the organization's signature on its body is its proof, which the core checks
 * itself); the delivery service to record the audit events of its own writes, whose actor it
 * verified when the write came in and signs its token for (signed), and to confirm that a gateway
 * token's actor is its key's current one; the evidence service for a release's evidence facts (for
 * the actor its gateway token carried), for who a settings session belongs to (the session's user,
 * named in the message), and to record the audit event of an evidence key rotation. Any other RPC
 * of the core's package is served to no caller (servedRpcs). The gateway also serves the OAuth
 * sign-in of the tool-protocol endpoint with OAuthService (the key and the codes are its proofs).
 */
export const CORE_INTERNAL_RPCS: InternalRpcs = {
  [`${AuthService.typeName}/Authenticate`]: { callers: ['gateway'] },
  [`${CodeHostService.typeName}/ReceiveWebhook`]: { callers: ['gateway'] },
  [`${AuditService.typeName}/RecordAuditEvent`]: {
    callers: Object.keys(AUDIT_ENTITY_TYPES) as ServiceName[],
    actorFrom: 'signed',
  },
  [`${AuthService.typeName}/ConfirmActor`]: { callers: ['delivery'] },
  [`${ReleaseEvidenceService.typeName}/GetReleaseFacts`]: { callers: ['evidence'] },
  [`${SessionService.typeName}/AuthenticateSession`]: { callers: ['evidence'], actorFrom: 'message' },
  // The tool-protocol endpoint's OAuth sign-in (docs/mcp.md, "Signing in"): the gateway serves the
  // endpoints; the key on the consent page and the codes and tokens are the proofs, checked here.
  ...Object.fromEntries(
    ['RegisterClient', 'GetClient', 'Approve', 'ExchangeCode', 'Refresh', 'Revoke'].map((m) => [
      `${OAuthService.typeName}/${m}`,
      { callers: ['gateway'] as ServiceName[] },
    ]),
  ),
};

/** The policy of each RPC the core serves: the table's for the gateway, and CORE_INTERNAL_RPCS. */
export const corePolicy = servedRpcs('core', CORE_INTERNAL_RPCS);
