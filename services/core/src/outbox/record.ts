import { prepared, type Knex } from '@cluster/db';
import type { EventEnvelope } from '@cluster/contracts';
import { enqueueEvents, notifyOutbox, outboxRowsCte } from '@cluster/outbox';
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

/** The row of an API write's audit event. */
function auditRow(actor: Actor, rec: AuditRecord) {
  return {
    ...(rec.id ? { id: rec.id } : {}),
    ...(rec.occurredAt ? { createdAt: rec.occurredAt } : {}),
    organizationId: actor.organizationId,
    projectId: rec.projectId ?? null,
    entityType: rec.entityType,
    action: rec.action,
    entityId: rec.entityId,
    entityName: rec.entityName ?? null,
    actorId: actor.userId || null,
    metadata: auditMetadata(actor, rec.metadata),
  };
}

/** The insert of an API write's audit event (not yet run). */
function auditInsert(trx: Knex.Transaction, actor: Actor, rec: AuditRecord): Knex.QueryBuilder {
  const row = auditRow(actor, rec);
  return trx('audit_events').insert({ ...row, metadata: JSON.stringify(row.metadata) });
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

/** A statement's SQL text with its `?` bindings (knex.raw). */
export interface SqlPart {
  sql: string;
  bindings: Knex.RawBinding[];
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A relation of one row if the CTE `written` returned a row, else of none. */
const WHEN_WRITTEN = '(SELECT 1 FROM written LIMIT 1) AS happened';

/**
 * A write made of one statement, with its audit record and events. `ctes` are the
 * statement's leading CTEs; one of them, named `written`, inserts or changes the
 * row (returning its columns) or does nothing when the write is refused (its
 * target is missing). The audit record and the outbox rows are written by the same
 * statement only if `written` returns a row. One statement is atomic, so this
 * needs no transaction: the write costs one round trip to Postgres instead of
 * five (BEGIN, write, audit and outbox, COMMIT, and the look-ups between).
 * The audit record and events are built beforehand, so `rec` and `events` must
 * not need values that only the database knows (give the row its id). With
 * `prepared`, the statement is a named prepared statement (see `prepared()`): its
 * text must then be constant (no `*`, a constant column list).
 * Returns the written row, or undefined when nothing was written.
 */
export async function writeInOneStatement(
  db: Knex, actor: Actor, ctes: SqlPart[], rec: AuditRecord, events: DomainEvent[], opts: { prepared?: string } = {},
): Promise<Record<string, unknown> | undefined> {
  const audit = auditRow(actor, rec);
  const auditCte = insertRowCte('audit_row', 'audit_events', audit, { columns: Object.keys(audit), from: WHEN_WRITTEN });
  const outbox = outboxRowsCte('core', forOutbox(actor.organizationId, actor, events), 'written');
  const notify = notifyOutbox('core');
  const parts = [...ctes, auditCte, outbox];
  const statement = db.raw(
    `WITH ${parts.map((p) => p.sql).join(',\n')}
    SELECT written.*, ${notify.sql} AS "__notified" FROM written`,
    [...parts.flatMap((p) => p.bindings), ...notify.bindings],
  );
  const { rows } = await (opts.prepared ? statement.options(prepared(opts.prepared)) : statement);
  const row = rows[0] as Record<string, unknown> | undefined;
  if (row) delete row.__notified;
  return row;
}

/**
 * SQL of a CTE that inserts one row into `table`, given as a plain object: the
 * values travel as one jsonb parameter typed by the table's own row type.
 * `columns` are the columns written (a constant list keeps the SQL text constant,
 * so it can be a prepared statement); those the row leaves out are written as
 * NULL, so a column whose default matters must be in the row or left out of the
 * list. `from` adds relations to read from (the insert writes nothing if one of
 * them is empty), `computed` columns are set from them (SQL expressions of our
 * own code, never input), and `returning` names the columns the CTE returns (none
 * by default).
 */
export function insertRowCte(
  name: string, table: string, row: Record<string, unknown>,
  opts: { columns: readonly string[]; returning?: readonly string[]; from?: string; computed?: Record<string, string> },
): SqlPart {
  const computed = Object.entries(opts.computed ?? {});
  return {
    sql: `${name} AS (
      INSERT INTO ${ident(table)} (${[...opts.columns, ...computed.map(([c]) => c)].map(ident).join(', ')})
      SELECT ${[...opts.columns.map((c) => `r.${ident(c)}`), ...computed.map(([, expr]) => expr)].join(', ')}
      FROM ${opts.from ? `${opts.from}, ` : ''}jsonb_populate_record(NULL::${ident(table)}, ?::jsonb) AS r
      ${opts.returning?.length ? `RETURNING ${opts.returning.map(ident).join(', ')}` : ''})`,
    bindings: [JSON.stringify(row)],
  };
}
