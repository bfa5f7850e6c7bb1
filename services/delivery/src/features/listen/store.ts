import type { Knex } from '@cluster/db';
import type { QueryResult } from 'pg';
import type { NewSubscription, SubscriptionRow } from '../subscriptions/store.ts';

/** A delivery of a temporary subscription, reserved for its listener's stream. */
export interface ListenedDelivery {
  id: string;
  /** Its time and partition key (migration 018), which the record of its attempt names. */
  createdAt: Date;
  organizationId: string;
  subscriptionId: string;
  eventName: string;
  body: string;
  attempts: number;
  firstAttemptAt: Date | null;
  leaseToken: string;
  traceparent: string | null;
}

/**
 * The temporary subscriptions of listening CLIs (docs/decisions-webhooks.md, "Local listening"): all
 * SQL of the feature. A temporary subscription is a row of delivery.subscriptions with `temporary`
 * and a lease (`listenExpiresAt`, migration 015); its deliveries are the fan-out's, claimed here by
 * the replica holding its stream. Deleting it deletes its deliveries and their attempts (ON DELETE
 * CASCADE): a listener leaves nothing behind.
 */
export interface ListenStore {
  /** Serialises the organization's openings until the transaction ends (the cap holds across replicas). */
  lock(organizationId: string): Promise<void>;
  /** How many temporary subscriptions the organization has whose lease runs. */
  countOpen(organizationId: string): Promise<number>;
  /** Inserts a temporary subscription leased for `ttlMs`. */
  open(values: NewSubscription, ttlMs: number): Promise<SubscriptionRow>;
  /** Extends its lease by `ttlMs` from now; false when it is gone (swept). */
  renew(id: string, ttlMs: number): Promise<boolean>;
  /** Deletes a temporary subscription with its deliveries. */
  close(id: string): Promise<void>;
  /** Deletes the temporary subscriptions whose lease lapsed (their replica died); how many. */
  removeLapsed(): Promise<number>;
  /** Reserves up to `limit` of its pending deliveries not leased elsewhere, oldest first, for `leaseMs`. */
  claim(subscriptionId: string, limit: number, leaseMs: number): Promise<ListenedDelivery[]>;
}

/** The knex implementation of ListenStore. */
export function createListenStore(db: Knex): ListenStore {
  const subscriptions = () => db<SubscriptionRow>('delivery.subscriptions');
  return {
    async lock(organizationId) {
      await db.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`webhook-listen:${organizationId}`]);
    },
    async countOpen(organizationId) {
      const [row] = await subscriptions()
        .where({ organizationId, temporary: true })
        .andWhere('listenExpiresAt', '>', db.fn.now())
        .count<{ n: string }[]>({ n: '*' });
      return Number(row?.n ?? 0);
    },
    async open(values, ttlMs) {
      const [row] = await subscriptions()
        .insert({ ...values, temporary: true, listenExpiresAt: db.raw(`now() + (? * interval '1 millisecond')`, [ttlMs]) })
        .returning('*');
      return row;
    },
    async renew(id, ttlMs) {
      const n = await subscriptions()
        .where({ id, temporary: true })
        .update({ listenExpiresAt: db.raw(`now() + (? * interval '1 millisecond')`, [ttlMs]) });
      return n === 1;
    },
    async close(id) {
      await subscriptions().where({ id, temporary: true }).del();
    },
    async removeLapsed() {
      return subscriptions().where({ temporary: true }).andWhere('listenExpiresAt', '<', db.fn.now()).del();
    },
    async claim(subscriptionId, limit, leaseMs) {
      // Pending and not leased: the fan-out's rows (due now) and a test call's (never scheduled).
      const { rows } = await db.raw<QueryResult<ListenedDelivery>>(
        `UPDATE delivery.deliveries d
            SET "lockedUntil" = now() + (? * interval '1 millisecond'), "leaseToken" = gen_random_uuid()
          WHERE d.id = ANY(ARRAY(
            SELECT id FROM delivery.deliveries
             WHERE "subscriptionId" = ? AND status = 'pending' AND ("lockedUntil" IS NULL OR "lockedUntil" < now())
             ORDER BY "createdAt" LIMIT ? FOR UPDATE SKIP LOCKED))
        RETURNING d.id, d."organizationId", d."subscriptionId", d."eventName", d.body, d.attempts, d."firstAttemptAt",
                  d."leaseToken", d.traceparent, d."createdAt"`,
        [leaseMs, subscriptionId, limit],
      );
      // UPDATE ... RETURNING keeps no order: the stream sends them as they were created.
      return rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    },
  };
}
