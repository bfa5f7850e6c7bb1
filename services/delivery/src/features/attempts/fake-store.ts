import type { DeliveryRow } from '../deliveries/rows.ts';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import type { AttemptRecord, AttemptRow, AttemptStore, DeadLetterMessage } from './store.ts';

/**
 * An in-memory AttemptStore for unit tests (no Postgres), over the fake deliveries'
 * and subscriptions' rows: an attempt is recorded only while its lease holds, and
 * moves the delivery to its next step as the real statement does. `deadLetters`
 * collects the messages bound for the dead-letter topic.
 */
export function createFakeAttemptStore(
  deliveries: DeliveryRow[],
  subscriptions: SubscriptionRow[],
  clock: () => Date = () => new Date(),
): AttemptStore & { log: (AttemptRow & { deliveryId: string })[]; deadLetters: DeadLetterMessage[] } {
  const log: (AttemptRow & { deliveryId: string })[] = [];
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

  const apply = ({ delivery, result, attemptedAt, decision, deadLetter }: AttemptRecord): boolean => {
    const row = deliveries.find((r) => r.id === delivery.id && r.leaseToken === delivery.leaseToken);
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
      nextAttemptAt: decision.kind === 'retry' && live ? decision.at : null,
      firstAttemptAt: row.firstAttemptAt ?? attemptedAt,
      lastAttemptAt: attemptedAt,
      lockedUntil: null,
      leaseToken: null,
      updatedAt: clock(),
    });
    if (row.nextAttemptAt === null) releaseNext(row);
    log.push({
      deliveryId: row.id,
      attempt,
      outcome: result.ok ? 'succeeded' : 'failed',
      responseCode: result.responseCode,
      responseBody: result.responseBody,
      error: result.error,
      durationMs: result.durationMs,
      attemptedAt,
    });
    return true;
  };

  return {
    log,
    deadLetters,
    async recordAttempt(args) {
      return apply(args);
    },
    async recordAttempts(items) {
      return new Set(items.filter(apply).map((i) => i.delivery.id));
    },
    async listFor(deliveryId) {
      return log
        .filter((a) => a.deliveryId === deliveryId)
        .sort((a, b) => a.attempt - b.attempt)
        .map(({ deliveryId: _, ...a }) => a);
    },
  };
}
