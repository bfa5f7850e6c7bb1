import type { Knex } from '@cluster/db';
import type { EventEnvelope } from '@cluster/contracts';
import { enqueueEvents } from '@cluster/outbox';
import type { Actor } from '../lib/actor.ts';
import { auditMetadata } from '../lib/actor.ts';

export interface DomainEvent {
  eventName: string;
  entityType: string;
  entityId: string;
  projectId?: string | null;
  /** Defaults to the key's creating user; null for system actions (provider callbacks). */
  actorUserId?: string | null;
  payload: Record<string, unknown>;
}

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

/** The core's envelope fields of its domain events: organization, and the acting user unless an event says otherwise. */
function forOutbox(organizationId: string, actor: Actor | null, events: DomainEvent[]) {
  return events.map((e) => ({
    ...e,
    organizationId,
    actorUserId: e.actorUserId !== undefined ? e.actorUserId : (actor?.userId ?? null),
  }));
}

/** Writes domain events of the core into its outbox, in the caller's transaction. */
export async function emit(trx: Knex.Transaction, organizationId: string, actor: Actor | null, events: DomainEvent[]): Promise<EventEnvelope[]> {
  return enqueueEvents(trx, 'core', forOutbox(organizationId, actor, events));
}

/** The insert of an API write's audit event (not yet run). */
function auditInsert(trx: Knex.Transaction, actor: Actor, rec: AuditRecord): Knex.QueryBuilder {
  return trx('audit_events').insert({
    ...(rec.id ? { id: rec.id } : {}),
    ...(rec.occurredAt ? { createdAt: rec.occurredAt } : {}),
    organizationId: actor.organizationId,
    projectId: rec.projectId ?? null,
    entityType: rec.entityType,
    action: rec.action,
    entityId: rec.entityId,
    entityName: rec.entityName ?? null,
    actorId: actor.userId || null,
    metadata: JSON.stringify(auditMetadata(actor, rec.metadata)),
  });
}

/** Writes the audit event of an API write in the caller's transaction (once per `rec.id`, when given). */
export async function audit(trx: Knex.Transaction, actor: Actor, rec: AuditRecord): Promise<void> {
  const insert = auditInsert(trx, actor, rec);
  await (rec.id ? insert.onConflict('id').ignore() : insert);
}

/** The common write epilogue: one audit record and its events, same transaction, one statement. */
export async function recordWrite(trx: Knex.Transaction, actor: Actor, rec: AuditRecord, events: DomainEvent[] = []): Promise<void> {
  await enqueueEvents(trx, 'core', forOutbox(actor.organizationId, actor, events), [auditInsert(trx, actor, rec)]);
}
