import { randomUUID } from 'node:crypto';
import type { Knex } from '@cluster/db';
import type { EventEnvelope } from '@cluster/contracts';
import { LOGICAL_TOPICS } from '@cluster/kafka';
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
 * commit exactly when the change does, and notifies that schema's relay. The
 * relay of that schema publishes them. Every payload also carries `occurredAt`
 * (spec, "Payloads").
 *
 * `alongside` are further inserts of the same write (its audit record): they run
 * in the same statement as data-modifying CTEs, so a write's epilogue costs one
 * round trip to Postgres, not three.
 */
export async function enqueueEvents(
  trx: Knex.Transaction, schema: string, events: NewEvent[], alongside: Knex.QueryBuilder[] = [],
): Promise<EventEnvelope[]> {
  if (!events.length && !alongside.length) return [];
  const occurredAt = new Date().toISOString();
  // The logical name: the relay adds its process's prefix when it publishes.
  const topic = LOGICAL_TOPICS.domainEvents;
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
  let statement = trx.queryBuilder();
  alongside.forEach((write, i) => {
    statement = statement.with(`write_${i}`, write);
  });
  if (envelopes.length) {
    // The writer's trace context travels with the row to the Kafka message headers.
    const headers = JSON.stringify(traceHeaders());
    const rows = envelopes.map((env) => ({ eventId: env.id, topic, key: env.entityId, envelope: JSON.stringify(env), headers }));
    statement = statement.with('outbox_rows', trx(`${schema}.outbox`).insert(rows)).select(trx.raw('pg_notify(?, ?)', [`${schema}_outbox`, '']));
  } else {
    statement = statement.select(trx.raw('1'));
  }
  await statement;
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
