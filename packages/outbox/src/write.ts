import { randomUUID } from 'node:crypto';
import type { Knex } from '@cluster/db';
import type { EventEnvelope } from '@cluster/contracts';
import { topicNames } from '@cluster/kafka';
import { traceHeaders } from '@cluster/platform';

/** A domain event before it gets its id and timestamp. */
export interface NewEvent {
  eventName: string;
  entityType: string;
  entityId: string;
  organizationId: string;
  projectId?: string | null;
  actorUserId: string | null;
  payload: Record<string, unknown>;
}

/**
 * Writes events into the outbox table of the transaction's schema, so that they
 * commit exactly when the change does. The relay of that schema publishes them.
 * Every payload also carries `occurredAt` (spec, "Payloads").
 */
export async function enqueueEvents(trx: Knex.Transaction, schema: string, events: NewEvent[]): Promise<EventEnvelope[]> {
  if (!events.length) return [];
  const occurredAt = new Date().toISOString();
  const topic = topicNames().domainEvents;
  const envelopes: EventEnvelope[] = events.map((e) => ({
    id: randomUUID(),
    eventName: e.eventName,
    schemaVersion: 1,
    entityType: e.entityType,
    entityId: e.entityId,
    occurredAt,
    actorUserId: e.actorUserId,
    organizationId: e.organizationId,
    projectId: e.projectId ?? null,
    payload: { ...e.payload, occurredAt },
  }));
  // The writer's trace context travels with the row to the Kafka message headers.
  const headers = JSON.stringify(traceHeaders());
  await trx(`${schema}.outbox`).insert(
    envelopes.map((env) => ({ eventId: env.id, topic, key: env.entityId, envelope: JSON.stringify(env), headers })),
  );
  await trx.raw('SELECT pg_notify(?, ?)', [`${schema}_outbox`, '']);
  return envelopes;
}

/** The outbox table of a schema (call from that schema's migration). */
export async function createOutboxTable(knex: Knex, schema: string): Promise<void> {
  await knex.schema.withSchema(schema).createTable('outbox', (t) => {
    t.bigIncrements('seq').primary();
    t.uuid('eventId').notNullable().unique();
    t.text('topic').notNullable();
    t.text('key').notNullable();
    t.jsonb('envelope').notNullable();
    t.jsonb('headers');
    t.timestamp('createdAt', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}
