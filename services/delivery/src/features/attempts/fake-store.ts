import { atTime } from '../deliveries/queue-store.ts';
import type { FakeThrottle } from '../deliveries/fake-queue-store.ts';
import type { DeliveryRow } from '../deliveries/rows.ts';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import type { AttemptRecord, AttemptRow, AttemptStore, DeadLetterMessage } from './store.ts';

/**
 * An in-memory AttemptStore for unit tests (no Postgres), over the fake deliveries'
 * and subscriptions' rows: an attempt is recorded only while its lease holds, and
 * moves the delivery to its next step and keeps its subscription's health as the
 * real statement does. `deadLetters` collects the messages bound for the dead-letter topic.
 */
export function createFakeAttemptStore(
  deliveries: DeliveryRow[],
  subscriptions: SubscriptionRow[],
  clock: () => Date = () => new Date(),
  /** The fake queue's throttle state: a recorded slotted delivery gives its in-flight slot back. */
  throttles?: Map<string, FakeThrottle>,
): AttemptStore & { log: (AttemptRow & { deliveryId: string; pausedMs?: number | null })[]; deadLetters: DeadLetterMessage[] } {
  const log: (AttemptRow & { deliveryId: string; pausedMs?: number | null })[] = [];
  const deadLetters: DeadLetterMessage[] = [];

  /** ORDER_RELEASE: the next waiting delivery of a finished one's ordered key is due now. */
  const releaseNext = (finished: DeliveryRow) => {
    if (finished.orderKey === null) return;
    const now = clock();
    const next = deliveries
      .filter(
        (w) =>
          w.subscriptionId === finished.subscriptionId &&
          w.orderKey === finished.orderKey &&
          w.status === 'pending' &&
          w.nextAttemptAt === null &&
          !w.test,
      )
      .sort((a, b) => (a.orderSeq ?? 0) - (b.orderSeq ?? 0))[0];
    if (next) Object.assign(next, { nextAttemptAt: now, updatedAt: now });
  };

  /**
   * HEALTH_UPDATE, for the recorded attempts of one subscription (one statement's worth): any success
   * ends the run of failures (and its notice), else the failures add to it, failing since the first.
   */
  const keepHealth = (subscriptionId: string, all: AttemptRecord[]) => {
    const sub = subscriptions.find((s) => s.id === subscriptionId);
    if (!sub) return;
    // A receiver's Retry-After is no failure: it only moves pausedUntil (the latest asked for wins).
    for (const r of all) {
      if (r.decision.kind === 'paused' && (!sub.pausedUntil || sub.pausedUntil < r.decision.until))
        sub.pausedUntil = r.decision.until;
    }
    const recorded = all.filter((r) => r.decision.kind !== 'paused');
    if (all.some((r) => r.result.ok)) {
      Object.assign(sub, { consecutiveFailures: 0, failingSince: null, failingNotifiedAt: null });
      return;
    }
    if (!recorded.length) return;
    const firstFailure = new Date(Math.min(...recorded.map((r) => r.attemptedAt.getTime())));
    Object.assign(sub, {
      consecutiveFailures: sub.consecutiveFailures + recorded.length,
      failingSince: sub.failingSince ?? firstFailure,
    });
  };

  const apply = ({ delivery, result, attemptedAt, decision, deadLetter }: AttemptRecord): boolean => {
    // By id and time, as the statement finds it (migration 018's primary key).
    const row = deliveries.find(
      (r) => r.id === delivery.id && atTime(r.createdAt, delivery.createdAt) && r.leaseToken === delivery.leaseToken,
    );
    if (!row) return false;
    if (decision.kind === 'dead_letter') {
      if (!deadLetter) throw new Error('a dead letter is recorded with its message');
      deadLetters.push(deadLetter);
    }
    const sub = subscriptions.find((s) => s.id === row.subscriptionId);
    const live = !!sub && sub.enabled && !sub.deletedAt;
    const attempt = delivery.attempts + 1;
    Object.assign(row, {
      status: decision.kind === 'succeeded' ? 'succeeded' : decision.kind === 'dead_letter' ? 'dead_letter' : 'failed',
      attempts: attempt,
      responseCode: result.responseCode,
      responseBody: result.responseBody,
      error: result.error,
      durationMs: result.durationMs,
      nextAttemptAt: (decision.kind === 'retry' || decision.kind === 'paused') && live ? decision.at : null,
      throttledAttempts: (row.throttledAttempts ?? 0) + (decision.kind === 'paused' ? 1 : 0),
      firstAttemptAt: row.firstAttemptAt ?? attemptedAt,
      lastAttemptAt: attemptedAt,
      lockedUntil: null,
      leaseToken: null,
      updatedAt: clock(),
    });
    if (row.nextAttemptAt === null) releaseNext(row);
    if (delivery.slotted) throttles?.get(row.subscriptionId)?.leases.delete(delivery.leaseToken);
    log.push({
      deliveryId: row.id,
      attempt,
      outcome: result.ok ? 'succeeded' : 'failed',
      responseCode: result.responseCode,
      responseBody: result.responseBody,
      error: result.error,
      durationMs: result.durationMs,
      attemptedAt,
      pausedMs: decision.kind === 'paused' ? decision.until.getTime() - attemptedAt.getTime() : null,
    });
    return true;
  };

  return {
    log,
    deadLetters,
    async recordAttempt(args) {
      const subscriptionId = deliveries.find((r) => r.id === args.delivery.id)?.subscriptionId;
      if (!apply(args)) return false;
      if (subscriptionId) keepHealth(subscriptionId, [args]);
      return true;
    },
    async recordAttempts(items) {
      const bySubscription = new Map<string, AttemptRecord[]>();
      for (const item of items) {
        const subscriptionId = deliveries.find((r) => r.id === item.delivery.id)?.subscriptionId;
        if (!apply(item) || !subscriptionId) continue;
        bySubscription.set(subscriptionId, [...(bySubscription.get(subscriptionId) ?? []), item]);
      }
      for (const [subscriptionId, recorded] of bySubscription) keepHealth(subscriptionId, recorded);
      return new Set([...bySubscription.values()].flat().map((i) => i.delivery.id));
    },
    async listFor(deliveryId) {
      return log
        .filter((a) => a.deliveryId === deliveryId)
        .sort((a, b) => a.attempt - b.attempt)
        .map(({ deliveryId: _, pausedMs: __, ...a }) => a);
    },
  };
}
