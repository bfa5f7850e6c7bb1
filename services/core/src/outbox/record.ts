import type { Knex } from '@cluster/db';
import { insertRowCte, type SqlPart } from '@cluster/outbox';
import type { Actor } from '@cluster/proto';
import { apiWrite, recordWrite as commit, systemWrite, type ActorEvent, type AuditRecord } from '../shared/write.ts';

// TRANSITIONAL (issue 16): the old write helpers over the one write path
// (shared/write.ts -> packages/outbox commitWrite). Features move to
// `Stores.record(apiWrite(...))`; this file goes when the last one has.

export type { AuditRecord, SqlPart };
export type DomainEvent = ActorEvent;
export { insertRowCte };

/** Writes domain events of the core into its outbox, in the caller's transaction. */
export async function emit(trx: Knex.Transaction, organizationId: string, actor: Actor | null, events: DomainEvent[]): Promise<void> {
  await commit(trx, actor ? { ...apiWrite({ ...actor, organizationId }, null, events) } : systemWrite(organizationId, null, events));
}

/** Writes the audit event of an API write in the caller's transaction (once per `rec.id`, when given). */
export async function audit(trx: Knex.Transaction, actor: Actor, rec: AuditRecord): Promise<void> {
  await commit(trx, apiWrite(actor, rec));
}

/** The common write epilogue: one audit record and its events, same transaction, one statement. */
export async function recordWrite(trx: Knex.Transaction, actor: Actor, rec: AuditRecord, events: DomainEvent[] = []): Promise<void> {
  await commit(trx, apiWrite(actor, rec, events));
}

/** A write made of one statement (see packages/outbox WRITTEN). */
export async function writeInOneStatement(
  db: Knex, actor: Actor, ctes: SqlPart[], rec: AuditRecord, events: DomainEvent[], opts: { prepared?: string } = {},
): Promise<Record<string, unknown> | undefined> {
  return commit(db, apiWrite(actor, rec, events), { ctes, prepared: opts.prepared });
}
