import { isUuid, type Knex } from '@cluster/db';
import type { QueryResult } from 'pg';
import type { ClaimedDelivery } from '../deliveries/queue-store.ts';

/** A row of delivery.recoveries as stored (migration 007). */
export type RecoveryRow = {
  id: string;
  organizationId: string;
  subscriptionId: string;
  since: Date;
  until: Date;
  status: 'running' | 'completed';
  requeued: number;
  cursorCreatedAt: Date | null;
  cursorId: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
};

/** A delivery leased for a redelivery: what the sender needs, and its schedule before. */
export type LeasedDelivery = ClaimedDelivery & { nextAttemptAt: Date | null };

/** Redeliveries and recoveries in Postgres: all SQL of the feature. */
export interface RecoveryStore {
  /**
   * Leases one delivery of the subscription for a redelivery now, unless an attempt of it is in flight
   * (its lease is held): then undefined.
   */
  leaseOne(subscriptionId: string, deliveryId: string, leaseMs: number): Promise<LeasedDelivery | undefined>;
  insert(row: Pick<RecoveryRow, 'id' | 'organizationId' | 'subscriptionId' | 'since' | 'until'>): Promise<RecoveryRow>;
  find(organizationId: string, subscriptionId: string, id: string): Promise<RecoveryRow | undefined>;
  /**
   * Queues again up to `limit` of the recovery's window's finished-but-undelivered deliveries (`failed`
   * with nothing scheduled, or `dead_letter`) after its cursor, with a fresh retry period, and moves the
   * cursor and the count; completes the recovery when the window is done. Returns how many were queued.
   */
  requeueBatch(recovery: RecoveryRow, limit: number): Promise<{ requeued: number; done: boolean }>;
  /** Running recoveries no replica has moved for `staleMs` (their replica stopped): to resume. */
  stale(staleMs: number): Promise<RecoveryRow[]>;
}

/** The knex implementation of RecoveryStore. */
export function createRecoveryStore(db: Knex): RecoveryStore {
  const recoveries = () => db<RecoveryRow>('delivery.recoveries');
  return {
    async leaseOne(subscriptionId, deliveryId, leaseMs) {
      if (!isUuid(deliveryId)) return undefined;
      const { rows } = await db.raw<QueryResult<LeasedDelivery>>(
        `UPDATE delivery.deliveries d
            SET "leaseToken" = gen_random_uuid(), "lockedUntil" = now() + (? * interval '1 millisecond')
           FROM delivery.subscriptions s
          WHERE d.id = ? AND d."subscriptionId" = ? AND s.id = d."subscriptionId"
            AND (d."lockedUntil" IS NULL OR d."lockedUntil" < now())
      RETURNING d.id, d."createdAt", d."organizationId", d."subscriptionId", d."eventName", d.body, d.attempts, d."firstAttemptAt",
                d."leaseToken", d."nextAttemptAt", d.traceparent, s."destinationUrl", s."destinationOrigin",
                s."secretSealed", s."previousSecretSealed", s."previousSecretUntil", s."receiverSealed", d."orderKey"`,
        [leaseMs, deliveryId, subscriptionId],
      );
      return rows[0];
    },
    async insert(row) {
      const [inserted] = await recoveries().insert(row).returning('*');
      return inserted;
    },
    async find(organizationId, subscriptionId, id) {
      if (!isUuid(id)) return undefined;
      return recoveries().where({ id, organizationId, subscriptionId }).first();
    },
    async requeueBatch(recovery, limit) {
      const { rows } = await db.raw<QueryResult<{ requeued: number; status: RecoveryRow['status'] }>>(
        `WITH batch AS (
           SELECT d.id, d."createdAt" FROM delivery.deliveries d
            WHERE d."subscriptionId" = :sub AND NOT d.test
              AND d."createdAt" >= :since AND d."createdAt" < :until
              AND (d.status = 'dead_letter' OR (d.status = 'failed' AND d."nextAttemptAt" IS NULL))
              AND (:cursorAt::timestamptz IS NULL OR (d."createdAt", d.id) > (:cursorAt::timestamptz, :cursorId::uuid))
            ORDER BY d."createdAt", d.id
            LIMIT :limit
              FOR UPDATE SKIP LOCKED
         ), queued AS (
           UPDATE delivery.deliveries d
              SET "nextAttemptAt" = now(), "firstAttemptAt" = NULL, "updatedAt" = now()
             FROM batch WHERE d.id = batch.id AND d."createdAt" = batch."createdAt"
           RETURNING d.id
         ), last AS (
           SELECT "createdAt", id FROM batch ORDER BY "createdAt" DESC, id DESC LIMIT 1
         )
         UPDATE delivery.recoveries r
            SET requeued = r.requeued + (SELECT count(*) FROM queued),
                "cursorCreatedAt" = COALESCE((SELECT "createdAt" FROM last), r."cursorCreatedAt"),
                "cursorId" = COALESCE((SELECT id FROM last), r."cursorId"),
                status = CASE WHEN (SELECT count(*) FROM batch) < :limit THEN 'completed' ELSE r.status END,
                "completedAt" = CASE WHEN (SELECT count(*) FROM batch) < :limit THEN now() ELSE NULL END,
                "updatedAt" = now()
          WHERE r.id = :id AND r.status = 'running'
      RETURNING (SELECT count(*)::int FROM queued) AS requeued, r.status`,
        {
          sub: recovery.subscriptionId,
          since: recovery.since,
          until: recovery.until,
          cursorAt: recovery.cursorCreatedAt,
          cursorId: recovery.cursorId,
          limit,
          id: recovery.id,
        },
      );
      const row = rows[0];
      return row ? { requeued: row.requeued, done: row.status === 'completed' } : { requeued: 0, done: true };
    },
    async stale(staleMs) {
      return recoveries()
        .where({ status: 'running' })
        .where('updatedAt', '<', db.raw(`now() - (? * interval '1 millisecond')`, [staleMs]));
    },
  };
}
