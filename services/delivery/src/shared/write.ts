import { randomUUID } from 'node:crypto';
import { create, toJson } from '@bufbuild/protobuf';
import type { Knex } from '@cluster/db';
import { commitWrite, stampEvents, type ActorEvent, type WriteRecord } from '@cluster/outbox';
import { ActorSchema, type Actor } from '@cluster/proto';

/**
 * Audit records of webhook writes wait here, written with the write, until the core
 * (which keeps the audit trail) has recorded them (audit/forwarder.ts).
 */
export const AUDIT_OUTBOX_TABLE = 'delivery.audit_outbox';

/** The audit record of one write, before the actor is added. */
export interface AuditRecord {
  entityType: string;
  action: string;
  entityId: string;
  metadata?: Record<string, unknown>;
}

export type { ActorEvent };

/**
 * What a write made with an API key leaves behind: its audit record, queued for
 * the core under an id of its own (the core records an id once), and its events,
 * stamped with the actor's organization and user. Pure but for the id: services
 * build it, stores commit it (`Stores.record`).
 */
export function apiWrite(actor: Actor, audit: AuditRecord | null, events: ActorEvent[] = []): WriteRecord {
  return {
    rows: audit
      ? [
          {
            table: AUDIT_OUTBOX_TABLE,
            row: {
              id: randomUUID(),
              actor: toJson(ActorSchema, actor),
              entityType: audit.entityType,
              action: audit.action,
              entityId: audit.entityId,
              metadata: audit.metadata ?? {},
            },
          },
        ]
      : [],
    events: stampEvents(events, actor.organizationId, actor.userId || null),
  };
}

/**
 * What a write the service decided itself leaves behind (disabling a failing endpoint): an audit
 * record made by no user and no key (`metadata.actorType` `system`), and events with actorUserId null.
 */
export function systemWrite(organizationId: string, audit: AuditRecord | null, events: ActorEvent[] = []): WriteRecord {
  const system = create(ActorSchema, { organizationId, scope: 'organization' });
  return apiWrite(system, audit && { ...audit, metadata: { ...audit.metadata, actorType: 'system' } }, events);
}

/** Commits a write of the delivery service (packages/outbox `commitWrite`), in `db`'s transaction when it is one. */
export async function recordWrite(db: Knex, write: WriteRecord): Promise<void> {
  await commitWrite(db, 'delivery', write);
}
