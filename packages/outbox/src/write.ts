import { randomUUID } from 'node:crypto';
import type { Knex } from '@cluster/db';
import type { EmittedEventName, EventEnvelope } from '@cluster/contracts';
import { LOGICAL_TOPICS } from '@cluster/kafka';
import { traceHeaders } from '@cluster/platform';

/**
 * A domain event as a write produces it, before it gets its id and timestamp. The
 * same name from the write to the outbox; on Kafka it travels as an EventEnvelope.
 */
export interface DomainEvent {
  eventName: string;
  entityType: string;
  entityId: string;
  organizationId: string;
  projectId?: string | null;
  actorUserId: string | null;
  payload: Record<string, unknown>;
}

/**
 * A domain event of a write whose organization and (unless it says otherwise)
 * acting user come from the write's actor: what services build.
 */
export type ActorEvent = Omit<DomainEvent, 'organizationId' | 'actorUserId' | 'eventName'> & {
  /** Only a name the event catalogue defines (with its payload schema) can be emitted. */
  eventName: EmittedEventName;
  actorUserId?: string | null;
};

/** Stamps events with the write's organization and acting user (an event's own `actorUserId`, even null, wins). */
export function stampEvents(events: ActorEvent[], organizationId: string, actorUserId: string | null): DomainEvent[] {
  return events.map((e) => ({ ...e, organizationId, actorUserId: e.actorUserId !== undefined ? e.actorUserId : actorUserId }));
}

/** A row written together with a change, e.g. its audit record. */
export interface WriteRow {
  /** Table, optionally schema-qualified (`delivery.audit_outbox`). */
  table: string;
  /** Plain values (objects for jsonb columns); columns it leaves out get their defaults. */
  row: Record<string, unknown>;
  /** Written only once per primary key: a repeat (a retried forward) writes nothing. */
  ignoreConflict?: boolean;
}

/**
 * A message for a topic other than the domain events' (the dead-letter topic),
 * published by the same relay in the same commit order.
 */
export interface OutboxMessage {
  /** Logical topic name (LOGICAL_TOPICS); the relay adds its prefix. */
  topic: string;
  key: string;
  /** The message value; `id` and `eventName` also become its `event-id` and `event-name` headers. */
  value: { id: string; eventName: string };
}

/** What a write leaves behind besides the change itself: its audit record(s), its events and other messages. */
export interface WriteRecord {
  rows: WriteRow[];
  events: DomainEvent[];
  messages?: OutboxMessage[];
}

/** A statement's SQL text with its `?` bindings (knex.raw). */
export interface SqlPart {
  sql: string;
  bindings: Knex.RawBinding[];
}

/**
 * The CTE contract of a write made of one statement: the CTE that makes the change
 * must be named WRITTEN and return the changed row, or no row when the write is
 * refused (its target is missing); the write's rows and events are written only if
 * it returned one.
 */
export const WRITTEN = 'written';

/** The change of a write made of one statement (see WRITTEN). */
export interface OneStatementChange {
  /** Leading CTEs; one of them is named WRITTEN. */
  ctes: SqlPart[];
  /**
   * A named prepared statement (`prepared()` of @cluster/db): its text must then be
   * constant (named columns, rows with a constant set of keys).
   */
  prepared?: string;
}

const ident = (name: string) =>
  name
    .split('.')
    .map((p) => `"${p.replace(/"/g, '""')}"`)
    .join('.');

/**
 * The one write path of every service: writes a change's rows (its audit record)
 * and its events into the outbox of `schema`, atomically with the change, as ONE
 * statement, and wakes that schema's relay when it commits.
 *
 * - Without `change`, the rows and events are written as one statement in the
 *   caller's transaction (`db` is then a knex transaction that made the change).
 * - With `change`, the change itself is part of the statement (data-modifying
 *   CTEs, see WRITTEN); one statement is atomic, so no transaction is needed and
 *   the whole write is one round trip to Postgres. Returns the written row, or
 *   undefined when the change wrote nothing (and then nothing else was written).
 *
 * Measured (bench/README.md): a create as one statement is about 15% more writes/s
 * than BEGIN, change, this epilogue, COMMIT; writes that must read before they
 * change (updates with before/after events) use the transaction form.
 * `Row` is the row type of the change's table (its CTE returns that table's row).
 */
export async function commitWrite<Row extends object = Record<string, unknown>>(
  db: Knex,
  schema: string,
  write: WriteRecord,
  change?: OneStatementChange,
): Promise<Row | undefined> {
  const outbox = [...outboxRows(toEnvelopes(write.events)), ...(write.messages ?? []).map(messageRow)];
  if (!change && !write.rows.length && !outbox.length) return undefined;
  const gate = change ? `(SELECT 1 FROM ${WRITTEN} LIMIT 1) AS happened` : undefined;
  const parts: SqlPart[] = [...(change?.ctes ?? [])];
  write.rows.forEach((r, i) =>
    parts.push(insertRowCte(`row_${i}`, r.table, r.row, { from: gate, ignoreConflict: r.ignoreConflict })),
  );
  if (outbox.length) parts.push(outboxRowsCte(schema, outbox, gate));
  const notify = outbox.length ? 'pg_notify(?, ?)' : 'NULL';
  const notifyBindings = outbox.length ? [`${schema}_outbox`, ''] : [];
  const statement = db.raw<{ rows: Record<string, unknown>[] }>(
    `${parts.length ? `WITH ${parts.map((p) => p.sql).join(',\n')}\n` : ''}SELECT ${change ? `${WRITTEN}.*, ` : ''}${notify} AS "__notified"${change ? ` FROM ${WRITTEN}` : ''}`,
    [...parts.flatMap((p) => p.bindings), ...notifyBindings],
  );
  const { rows } = await (change?.prepared ? statement.options({ name: change.prepared }) : statement);
  if (!change) return undefined;
  const row = rows[0] as (Row & { __notified?: unknown }) | undefined;
  if (row) delete row.__notified;
  return row;
}

/**
 * SQL of a CTE that inserts one row into `table`, given as a plain object: the
 * values travel as one jsonb parameter typed by the table's own row type, so the
 * text depends only on the set of keys. `columns` (default: the row's keys) are
 * written; those the row leaves out are written as NULL. `from` adds relations to
 * read from (the insert writes nothing if one of them is empty), `computed`
 * columns are set from them (SQL expressions of our own code, never input), and
 * `returning` names the columns the CTE returns (none by default).
 */
export function insertRowCte(
  name: string,
  table: string,
  row: Record<string, unknown>,
  opts: {
    columns?: readonly string[];
    returning?: readonly string[];
    from?: string;
    computed?: Record<string, string>;
    ignoreConflict?: boolean;
  } = {},
): SqlPart {
  const columns = opts.columns ?? Object.keys(row);
  const computed = Object.entries(opts.computed ?? {});
  return {
    sql: `${name} AS (
      INSERT INTO ${ident(table)} (${[...columns, ...computed.map(([c]) => c)].map(ident).join(', ')})
      SELECT ${[...columns.map((c) => `r.${ident(c)}`), ...computed.map(([, expr]) => expr)].join(', ')}
      FROM ${opts.from ? `${opts.from}, ` : ''}jsonb_populate_record(NULL::${ident(table)}, ?::jsonb) AS r
      ${opts.ignoreConflict ? 'ON CONFLICT DO NOTHING' : ''}
      ${opts.returning?.length ? `RETURNING ${opts.returning.map(ident).join(', ')}` : ''})`,
    bindings: [JSON.stringify(row)],
  };
}

/** One row of an outbox table. */
interface OutboxRow {
  eventId: string;
  topic: string;
  key: string;
  envelope: object;
  headers: Record<string, string>;
}

/**
 * The outbox rows as a data-modifying CTE, gated by `from` when given. Each row gets its relay slot
 * here, at insert: a hash of its key (the entity id) into the slot count the relays set in
 * `<schema>.outbox_settings` (OUTBOX_RELAY_SLOTS; 1 while no relay has set it). docs/decisions.md,
 * "Transactional outbox".
 */
function outboxRowsCte(schema: string, rows: OutboxRow[], from: string | undefined): SqlPart {
  return {
    sql: `outbox_rows AS (
      INSERT INTO ${ident(schema)}.outbox ("eventId", topic, key, envelope, headers, slot)
      SELECT r."eventId", r.topic, r.key, r.envelope, r.headers, ${slotOfKey('r.key', schema)}
      FROM ${from ? `${from}, ` : ''}jsonb_to_recordset(?::jsonb) AS r("eventId" uuid, topic text, key text, envelope jsonb, headers jsonb))`,
    bindings: [JSON.stringify(rows)],
  };
}

/** Envelopes of new events: an id each, one timestamp for the write, also in every payload (spec, "Payloads"). */
function toEnvelopes(events: DomainEvent[]): EventEnvelope[] {
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
function outboxRows(envelopes: EventEnvelope[]): OutboxRow[] {
  // The logical name: the relay adds its process's prefix when it publishes.
  const topic = LOGICAL_TOPICS.domainEvents;
  const headers = traceHeaders();
  return envelopes.map((env) => ({ eventId: env.id, topic, key: env.entityId, envelope: env, headers }));
}

/** The outbox row of another message; its row id is fresh (the value's id may repeat, e.g. a delivery's). */
function messageRow(m: OutboxMessage): OutboxRow {
  return { eventId: randomUUID(), topic: m.topic, key: m.key, envelope: m.value, headers: traceHeaders() };
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

/** SQL of the slot of the row whose key is `key`: its hash modulo the schema's slot count. */
export function slotOfKey(key: string, schema: string): string {
  return `(hashtext(${key}) & 2147483647) % coalesce((SELECT slots FROM ${ident(schema)}.outbox_settings WHERE id), 1)`;
}

/**
 * The relay slots of a schema's outbox (call from that schema's migration; expand-only, so a
 * release without slots keeps writing and relaying during a roll):
 * - `outbox.slot`, NOT NULL DEFAULT 0 (a row an older release writes lands in slot 0), with the
 *   indexes of a slot's batch (`slot, seq`) and of the same-entity guard (`key, seq`);
 * - `outbox_settings`, one row: the slot count writers hash keys into (set by the relays from
 *   OUTBOX_RELAY_SLOTS);
 * - `outbox_relays`, the live relays (their connection's backend, a heartbeat), and
 *   `outbox_leases`, one row per slot: which relay leads it until when. Rows, not advisory locks:
 *   only roles granted on this schema can take or hold them (docs/security.md).
 */
export async function addOutboxSlots(knex: Knex, schema: string): Promise<void> {
  const s = ident(schema);
  await knex.raw(`ALTER TABLE ${s}.outbox ADD COLUMN IF NOT EXISTS slot integer NOT NULL DEFAULT 0`);
  await knex.raw(`CREATE INDEX IF NOT EXISTS outbox_slot_seq ON ${s}.outbox (slot, seq)`);
  await knex.raw(`CREATE INDEX IF NOT EXISTS outbox_key_seq ON ${s}.outbox (key, seq)`);
  await knex.raw(`CREATE TABLE IF NOT EXISTS ${s}.outbox_settings (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    slots integer NOT NULL CHECK (slots BETWEEN 1 AND 1024))`);
  await knex.raw(`CREATE TABLE IF NOT EXISTS ${s}.outbox_relays (
    holder text PRIMARY KEY,
    pid integer NOT NULL,
    "backendStart" timestamptz NOT NULL,
    "expiresAt" timestamptz NOT NULL)`);
  await knex.raw(`CREATE TABLE IF NOT EXISTS ${s}.outbox_leases (
    slot integer PRIMARY KEY,
    holder text,
    "expiresAt" timestamptz NOT NULL DEFAULT '-infinity')`);
}
