import { randomUUID } from 'node:crypto';
import { unleased } from '../deliveries/fake-queue-store.ts';
import type { DeliveryRow } from '../deliveries/rows.ts';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import type { LeasedDelivery, RecoveryRow, RecoveryStore } from './store.ts';

/**
 * An in-memory RecoveryStore for unit tests, over the fake delivery and subscription rows: it leases a
 * delivery for a redelivery, and queues a recovery's window again in batches after its cursor, as the
 * real statements do.
 */
export function createFakeRecoveryStore(
  deliveries: DeliveryRow[] = [],
  subscriptions: SubscriptionRow[] = [],
  clock: () => Date = () => new Date(),
): RecoveryStore & { rows: RecoveryRow[] } {
  const rows: RecoveryRow[] = [];
  const after = (d: DeliveryRow, r: RecoveryRow) =>
    r.cursorCreatedAt === null ||
    d.createdAt > r.cursorCreatedAt ||
    (d.createdAt.getTime() === r.cursorCreatedAt.getTime() && r.cursorId !== null && d.id > r.cursorId);
  return {
    rows,
    async leaseOne(subscriptionId, deliveryId, leaseMs) {
      const now = clock();
      const d = deliveries.find((x) => x.id === deliveryId && x.subscriptionId === subscriptionId && unleased(x, now));
      const s = subscriptions.find((x) => x.id === subscriptionId);
      if (!d || !s) return undefined;
      Object.assign(d, { leaseToken: randomUUID(), lockedUntil: new Date(now.getTime() + leaseMs) });
      const leased: LeasedDelivery = {
        id: d.id,
        createdAt: d.createdAt,
        organizationId: d.organizationId,
        subscriptionId: d.subscriptionId,
        eventName: d.eventName,
        body: d.body,
        attempts: d.attempts,
        firstAttemptAt: d.firstAttemptAt,
        leaseToken: d.leaseToken!,
        nextAttemptAt: d.nextAttemptAt,
        traceparent: d.traceparent,
        destinationUrl: s.destinationUrl,
        destinationOrigin: s.destinationOrigin,
        secretSealed: s.secretSealed,
        previousSecretSealed: s.previousSecretSealed,
        previousSecretUntil: s.previousSecretUntil,
        receiverSealed: s.receiverSealed ?? null,
        orderKey: d.orderKey,
      };
      return leased;
    },
    async insert(values) {
      const now = clock();
      const row: RecoveryRow = {
        ...values,
        status: 'running',
        requeued: 0,
        cursorCreatedAt: null,
        cursorId: null,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
      };
      rows.push(row);
      return { ...row };
    },
    async find(organizationId, subscriptionId, id) {
      const row = rows.find((r) => r.id === id && r.organizationId === organizationId && r.subscriptionId === subscriptionId);
      return row && { ...row };
    },
    async requeueBatch(recovery, limit) {
      const row = rows.find((r) => r.id === recovery.id && r.status === 'running');
      if (!row) return { requeued: 0, done: true };
      const now = clock();
      const batch = deliveries
        .filter(
          (d) =>
            d.subscriptionId === recovery.subscriptionId &&
            !d.test &&
            d.createdAt >= recovery.since &&
            d.createdAt < recovery.until &&
            (d.status === 'dead_letter' || (d.status === 'failed' && d.nextAttemptAt === null)) &&
            after(d, recovery),
        )
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
        .slice(0, limit);
      for (const d of batch) Object.assign(d, { nextAttemptAt: now, firstAttemptAt: null, updatedAt: now });
      const last = batch.at(-1);
      const done = batch.length < limit;
      Object.assign(row, {
        requeued: row.requeued + batch.length,
        cursorCreatedAt: last?.createdAt ?? row.cursorCreatedAt,
        cursorId: last?.id ?? row.cursorId,
        status: done ? 'completed' : row.status,
        completedAt: done ? now : null,
        updatedAt: now,
      });
      return { requeued: batch.length, done };
    },
    async stale(staleMs) {
      const cut = clock().getTime() - staleMs;
      return rows.filter((r) => r.status === 'running' && r.updatedAt.getTime() < cut).map((r) => ({ ...r }));
    },
  };
}
