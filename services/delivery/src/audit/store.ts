import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import type { Knex } from '@cluster/db';
import { AUDIT_OUTBOX_TABLE } from '../shared/write.ts';

/** An audit record waiting for the core (written by `apiWrite`, shared/write.ts): a row of delivery.audit_outbox but its seq. */
export type QueuedAudit = {
  id: string;
  /** The Actor in its proto3 JSON mapping. */
  actor: JsonValue;
  entityType: string;
  action: string;
  entityId: string;
  metadata: JsonObject | null;
  createdAt: Date;
};

/** A row of delivery.audit_outbox as stored (migration 002). */
type AuditOutboxRow = QueuedAudit & { seq: number };

/** The audit outbox in Postgres: all SQL of the forwarder. */
export interface AuditOutboxStore {
  /**
   * Runs `forward` over up to `limit` queued records, oldest first, locked for this
   * replica (others skip them), and deletes them when it resolves, in one
   * transaction: a throw keeps them all. Returns how many there were.
   */
  forwardOldest(limit: number, forward: (rows: QueuedAudit[]) => Promise<void>): Promise<number>;
  /** Records waiting (the backlog metric). */
  count(): Promise<number>;
}

/** The knex implementation of AuditOutboxStore. */
export function createAuditOutboxStore(db: Knex): AuditOutboxStore {
  return {
    forwardOldest: (limit, forward) =>
      db.transaction(async (trx) => {
        const rows: QueuedAudit[] = await trx<AuditOutboxRow>(AUDIT_OUTBOX_TABLE)
          .orderBy('seq')
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .select('id', 'actor', 'entityType', 'action', 'entityId', 'metadata', 'createdAt');
        await forward(rows);
        if (rows.length)
          await trx(AUDIT_OUTBOX_TABLE)
            .whereIn(
              'id',
              rows.map((r) => r.id),
            )
            .del();
        return rows.length;
      }),
    async count() {
      const [{ count }] = await db<AuditOutboxRow>(AUDIT_OUTBOX_TABLE).count<{ count: number }[]>({ count: '*' });
      return Number(count);
    },
  };
}
