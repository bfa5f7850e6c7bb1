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
  const envelopes = toEnvelopes(events);
  let statement = trx.queryBuilder();
  alongside.forEach((write, i) => {
    statement = statement.with(`write_${i}`, write);
  });
  if (envelopes.length) {
    const rows = outboxRows(envelopes).map((r) => ({ ...r, envelope: JSON.stringify(r.envelope), headers: JSON.stringify(r.headers) }));
    const notify = notifyOutbox(schema);
    statement = statement.with('outbox_rows', trx(`${schema}.outbox`).insert(rows)).select(trx.raw(notify.sql, notify.bindings));
  } else {
    statement = statement.select(trx.raw('1'));
  }
  await statement;
  return envelopes;
}

/**
 * The outbox rows of `events` as a data-modifying CTE (`outbox_rows`) for a write
 * made of one statement, written only if the CTE `onlyIf` of that statement returns
 * a row (the write happened). One statement is atomic: such a write needs no
 * transaction, so it costs one round trip to Postgres rather than five. The
 * statement must also select `notifyOutbox(schema)` so the relay wakes.
 */
export function outboxRowsCte(schema: string, events: NewEvent[], onlyIf: string): { sql: string; bindings: string[] } {
  return {
    sql: `outbox_rows AS (
      INSERT INTO "${schema}".outbox ("eventId", topic, key, envelope, headers)
      SELECT r."eventId", r.topic, r.key, r.envelope, r.headers
      FROM (SELECT 1 FROM "${onlyIf}" LIMIT 1) AS happened,
        jsonb_to_recordset(?::jsonb) AS r("eventId" uuid, topic text, key text, envelope jsonb, headers jsonb))`,
    bindings: [JSON.stringify(outboxRows(toEnvelopes(events)))],
  };
}

/** The select-list item that wakes the relay of `schema` when the statement commits. */
export function notifyOutbox(schema: string): { sql: string; bindings: string[] } {
  return { sql: 'pg_notify(?, ?)', bindings: [`${schema}_outbox`, ''] };
}

/** Envelopes of new events: an id each, one timestamp for the write, also in every payload (spec, "Payloads"). */
function toEnvelopes(events: NewEvent[]): EventEnvelope[] {
  const occurredAt = new Date().toISOString();
  return events.map((e) => ({
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
}

/** Outbox rows of envelopes; the writer's trace context travels with each row to the Kafka message headers. */
function outboxRows(envelopes: EventEnvelope[]) {
  // The logical name: the relay adds its process's prefix when it publishes.
  const topic = LOGICAL_TOPICS.domainEvents;
  const headers = traceHeaders();
  return envelopes.map((env) => ({ eventId: env.id, topic, key: env.entityId, envelope: env, headers }));
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
