import { fakePage } from '@cluster/db/test-kit';
import type { AttemptRow } from '../attempts/store.ts';
import { UNDELIVERED_STATUSES } from '@cluster/contracts';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import type { DeliveryReadStore, DeliverySearch, StatsBucket, UndeliveredCount } from './read-store.ts';
import type { DeliveryRecord, DeliveryRow } from './rows.ts';

/** An attempt of the fake attempt log (attempts/fake-store.ts): an entry and its delivery. */
export type FakeAttemptLogEntry = AttemptRow & { deliveryId: string; pausedMs?: number | null };

/** The record of a delivery row: the contract's DELIVERY_FIELDS, named one by one. */
export function deliveryRecord(r: DeliveryRow): DeliveryRecord {
  return {
    id: r.id,
    subscriptionId: r.subscriptionId,
    eventName: r.eventName,
    eventId: r.eventId,
    status: r.status,
    attempts: r.attempts,
    responseCode: r.responseCode,
    responseBody: r.responseBody,
    error: r.error,
    durationMs: r.durationMs,
    nextAttemptAt: r.nextAttemptAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** percentile_disc(p): the first value whose cumulative share reaches p (a duration that occurred). */
function percentileDisc(sorted: number[], p: number): number | null {
  return sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] : null;
}

/**
 * An in-memory DeliveryReadStore for unit tests, over the fake delivery rows and the fake attempt
 * log (for the statistics' attempt figures). Held to the real store by read-store.contract.test.ts.
 */
export function createFakeDeliveryReadStore(
  rows: DeliveryRow[],
  subscriptions: readonly SubscriptionRow[],
  log: readonly FakeAttemptLogEntry[] = [],
): DeliveryReadStore {
  const matching = (organizationId: string, f: DeliverySearch) =>
    rows.filter(
      (r) =>
        r.organizationId === organizationId &&
        subscriptions.some((s) => s.id === r.subscriptionId && s.organizationId === organizationId && !s.deletedAt) &&
        (f.subscriptionId === undefined || r.subscriptionId === f.subscriptionId) &&
        (f.status === undefined || r.status === f.status) &&
        (f.eventName === undefined || r.eventName === f.eventName) &&
        (f.since === undefined || r.createdAt >= f.since) &&
        (f.until === undefined || r.createdAt < f.until),
    );
  return {
    async list(organizationId, filter, page) {
      return fakePage(matching(organizationId, filter).map(deliveryRecord), page);
    },

    async undelivered(organizationId, filter) {
      const counts = new Map<string, UndeliveredCount>();
      for (const r of matching(organizationId, filter)) {
        const status = UNDELIVERED_STATUSES.find((s) => s === r.status);
        if (!status || r.test) continue;
        const key = `${r.subscriptionId} ${status}`;
        const c = counts.get(key) ?? { subscriptionId: r.subscriptionId, status, count: 0, oldestCreatedAt: r.createdAt };
        c.count += 1;
        if (r.createdAt < c.oldestCreatedAt) c.oldestCreatedAt = r.createdAt;
        counts.set(key, c);
      }
      return [...counts.values()];
    },

    async find(organizationId, subscriptionId, id) {
      const r = rows.find((x) => x.id === id && x.subscriptionId === subscriptionId && x.organizationId === organizationId);
      return r && deliveryRecord(r);
    },

    async stats(subscriptionId, since, createdAfter, cut) {
      const bucketOf = (at: Date) =>
        Math.min(Math.max(Math.floor((at.getTime() - since.getTime()) / cut.bucketMs), 0), cut.buckets - 1);
      const byStatus: Record<string, number> = {};
      const series: StatsBucket[] = Array.from({ length: cut.buckets }, () => ({ byStatus: {}, p50: null, p99: null }));
      for (const r of rows) {
        if (r.subscriptionId !== subscriptionId || r.test || r.createdAt < since) continue;
        byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
        const counts = series[bucketOf(r.createdAt)].byStatus;
        counts[r.status] = (counts[r.status] ?? 0) + 1;
      }
      const counted = new Set(
        rows.filter((r) => r.subscriptionId === subscriptionId && !r.test && r.createdAt >= createdAfter).map((r) => r.id),
      );
      const attempts = log.filter((a) => counted.has(a.deliveryId) && a.attemptedAt >= since);
      const succeeded = attempts.filter((a) => a.outcome === 'succeeded');
      const sorted = (list: FakeAttemptLogEntry[]) => list.map((a) => a.durationMs).sort((a, b) => a - b);
      const durations = sorted(attempts);
      series.forEach((bucket, i) => {
        const made = sorted(attempts.filter((a) => bucketOf(a.attemptedAt) === i));
        Object.assign(bucket, { p50: percentileDisc(made, 0.5), p99: percentileDisc(made, 0.99) });
      });
      const latest = (list: FakeAttemptLogEntry[]) =>
        list.length ? new Date(Math.max(...list.map((a) => a.attemptedAt.getTime()))) : null;
      return {
        byStatus,
        attempts: {
          total: attempts.length,
          succeeded: succeeded.length,
          failed: attempts.length - succeeded.length,
          p50: percentileDisc(durations, 0.5),
          p95: percentileDisc(durations, 0.95),
          p99: percentileDisc(durations, 0.99),
        },
        lastSuccessAt: latest(succeeded),
        lastFailureAt: latest(attempts.filter((a) => a.outcome !== 'succeeded')),
        pauses: {
          count: attempts.filter((a) => a.pausedMs != null).length,
          ms: attempts.reduce((sum, a) => sum + (a.pausedMs ?? 0), 0),
        },
        series,
      };
    },
  };
}
