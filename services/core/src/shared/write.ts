import { commitWrite, stampEvents, type ActorEvent, type OneStatementChange, type WriteRecord } from '@cluster/outbox';
import type { Knex } from '@cluster/db';
import type { Actor } from '@cluster/proto';

/** The core's audit trail: one row per write (docs/decisions-api.md, "Audit events"). */
export const AUDIT_TABLE = 'audit_events';

/** The audit record of one write, before the actor's fields are added. */
export interface AuditRecord {
  /** Set by callers that retry (forwarded audits): a repeat with the same id records nothing. */
  id?: string;
  /** When the write happened, if it was earlier than now (forwarded audits). */
  occurredAt?: string;
  entityType: string;
  action: string;
  entityId: string;
  entityName?: string | null;
  projectId?: string | null;
  metadata?: Record<string, unknown>;
}

export type { ActorEvent };

/**
 * Audit metadata of every write made through an API key; without a key, a settings session's user;
 * without either, an operator (an admin CLI of another service, recording through AuditService).
 */
export function auditMetadata(actor: Actor, extra: Record<string, unknown> = {}): Record<string, unknown> {
  if (!actor.apiKeyId) {
    return { actorType: actor.userId ? 'session' : 'admin_cli', requestId: actor.requestId || undefined, ...extra };
  }
  // A write through a portal session (docs/portal.md) names the session as well as the minting key.
  const session = actor.portalSessionId ? { portalSessionId: actor.portalSessionId } : {};
  return { actorType: 'api_key', apiKeyId: actor.apiKeyId, ...session, requestId: actor.requestId || undefined, ...extra };
}

/** Who made a write that no API key or session made: an operator (the admin CLI), or a code host's signed webhook. */
export type SystemActorType = 'admin_cli' | 'codehost';

/** The audit row of a write made `by` an actor, or by the system. */
function auditRow(organizationId: string, by: Actor | SystemActorType, rec: AuditRecord): Record<string, unknown> {
  const actor = typeof by === 'string' ? null : by;
  return {
    ...(rec.id ? { id: rec.id } : {}),
    ...(rec.occurredAt ? { createdAt: rec.occurredAt } : {}),
    organizationId,
    projectId: rec.projectId ?? null,
    entityType: rec.entityType,
    action: rec.action,
    entityId: rec.entityId,
    entityName: rec.entityName ?? null,
    actorId: actor?.userId || null,
    metadata: actor ? auditMetadata(actor, rec.metadata) : { actorType: by, ...rec.metadata },
  };
}

/**
 * What a write made with an API key leaves behind: its audit record (none when
 * `audit` is null) and its events, stamped with the actor's organization and user.
 * Pure: services build it, stores commit it (`Stores.record`).
 */
export function apiWrite(actor: Actor, audit: AuditRecord | null, events: ActorEvent[] = []): WriteRecord {
  return writeOf(actor.organizationId, actor, audit, events);
}

/**
 * What a write made by the system leaves behind: actorId null, actorType `by` (an operator through
 * the admin CLI unless said otherwise), events with actorUserId null.
 */
export function systemWrite(
  organizationId: string,
  audit: AuditRecord | null,
  events: ActorEvent[] = [],
  by: SystemActorType = 'admin_cli',
): WriteRecord {
  return writeOf(organizationId, by, audit, events);
}

function writeOf(
  organizationId: string,
  by: Actor | SystemActorType,
  audit: AuditRecord | null,
  events: ActorEvent[],
): WriteRecord {
  return {
    rows: audit ? [{ table: AUDIT_TABLE, row: auditRow(organizationId, by, audit), ignoreConflict: audit.id !== undefined }] : [],
    events: stampEvents(events, organizationId, typeof by === 'string' ? null : by.userId || null),
  };
}

/** Commits a write of the core (see commitWrite): in `db`'s transaction, or as one statement with `change`. */
export function recordWrite(
  db: Knex,
  write: WriteRecord,
  change?: OneStatementChange,
): Promise<Record<string, unknown> | undefined> {
  return commitWrite(db, 'core', write, change);
}
