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
  entityType: string;
  action: string;
  entityId: string;
  entityName?: string | null;
  projectId?: string | null;
  metadata?: Record<string, unknown>;
}

/** Writes domain events of the core into its outbox, in the caller's transaction. */
export async function emit(trx: Knex.Transaction, organizationId: string, actor: Actor | null, events: DomainEvent[]): Promise<EventEnvelope[]> {
  return enqueueEvents(trx, 'core', events.map((e) => ({
    ...e,
    organizationId,
    actorUserId: e.actorUserId !== undefined ? e.actorUserId : (actor?.userId ?? null),
  })));
}

/** Writes the audit event of an API write in the caller's transaction. */
export async function audit(trx: Knex.Transaction, actor: Actor, rec: AuditRecord): Promise<void> {
  await trx('audit_events').insert({
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

/** The common write epilogue: one audit record and its events, same transaction. */
export async function recordWrite(trx: Knex.Transaction, actor: Actor, rec: AuditRecord, events: DomainEvent[] = []): Promise<void> {
  await audit(trx, actor, rec);
  await emit(trx, actor.organizationId, actor, events);
}
