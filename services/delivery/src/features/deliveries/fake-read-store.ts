import { fakePage } from '@cluster/db/test-kit';
import type { AttemptRow } from '../attempts/store.ts';
import { UNDELIVERED_STATUSES } from '@cluster/contracts';
import type { SubscriptionRow } from '../subscriptions/store.ts';
import type { DeliveryReadStore, DeliverySearch, StatsBucket, UndeliveredCount } from './read-store.ts';
import type { DeliveryRecord, DeliveryRow } from './rows.ts';
import { bucketPercentiles, durationBucket } from './stats-rollup.ts';

/** An attempt of the fake attempt log (attempts/fake-store.ts): an entry and its delivery. */
export type FakeAttemptLogEntry = AttemptRow & { deliveryId: string; pausedMs?: number | null };

/**
 * What the fake statistics count besides the live rows, as the real rollup does: the deliveries and attempts
 * the retention deleted (fake-retention-store.ts), and the hour before which the rollup was pruned.
 */
export interface FakeStatsKept {
  deliveries: DeliveryRow[];
  log: FakeAttemptLogEntry[];
  prunedBefore: Date | null;
}

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

/**
 * An in-memory DeliveryReadStore for unit tests, over the fake delivery rows and the fake attempt
 * log (for the statistics' attempt figures, computed by a scan: what the real store's rollup must equal).
 * Held to the real store by read-store.contract.test.ts.
 */
export function createFakeDeliveryReadStore(
  rows: DeliveryRow[],
  subscriptions: readonly SubscriptionRow[],
  log: readonly FakeAttemptLogEntry[] = [],
  kept: FakeStatsKept = { deliveries: [], log: [], prunedBefore: null },
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

    async stats(subscriptionId, since, cut) {
      // What the rollup holds, from a scan (the rule the Postgres store's rollup keeps): the deliveries created
      // since `since` by status now, the attempts made since then, durations bucketed as DURATION_BOUNDS.
      const bucketOf = (at: Date) =>
        Math.min(Math.max(Math.floor((at.getTime() - since.getTime()) / cut.bucketMs), 0), cut.buckets - 1);
      const from = kept.prunedBefore && kept.prunedBefore > since ? kept.prunedBefore : since;
      const all = [...rows, ...kept.deliveries];
      const byStatus: Record<string, number> = {};
      const series: StatsBucket[] = Array.from({ length: cut.buckets }, () => ({ byStatus: {}, p50: null, p99: null }));
      for (const r of all) {
        if (r.subscriptionId !== subscriptionId || r.test || r.createdAt < from) continue;
        byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
        const counts = series[bucketOf(r.createdAt)].byStatus;
        counts[r.status] = (counts[r.status] ?? 0) + 1;
      }
      const counted = new Set(all.filter((r) => r.subscriptionId === subscriptionId && !r.test).map((r) => r.id));
      const attempts = [...log, ...kept.log].filter((a) => counted.has(a.deliveryId) && a.attemptedAt >= from);
      const succeeded = attempts.filter((a) => a.outcome === 'succeeded');
      const histogram = (list: FakeAttemptLogEntry[]) => {
        const counts: number[] = [];
        for (const a of list) {
          const b = durationBucket(a.durationMs);
          for (let i = counts.length; i <= b; i++) counts.push(0);
          counts[b] += 1;
        }
        return counts;
      };
      const whole = histogram(attempts);
      series.forEach((bucket, i) => {
        const [p50, p99] = bucketPercentiles(histogram(attempts.filter((a) => bucketOf(a.attemptedAt) === i)), [0.5, 0.99]);
        Object.assign(bucket, { p50, p99 });
      });
      const [p50, p95, p99] = bucketPercentiles(whole, [0.5, 0.95, 0.99]);
      const latest = (list: FakeAttemptLogEntry[]) =>
        list.length ? new Date(Math.max(...list.map((a) => a.attemptedAt.getTime()))) : null;
      return {
        byStatus,
        attempts: {
          total: attempts.length,
          succeeded: succeeded.length,
          failed: attempts.length - succeeded.length,
          p50,
          p95,
          p99,
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
